with "_1" as (insert into "public"."author" ("name") values ($1::text) returning *, "ctid" as "__service_ctid"), "_2" as (insert into "public"."article" ("author_id", "title") select "_1"."id", $2::text from "_1" returning *, "ctid" as "__service_ctid"), "_3" as (insert into "public"."article" ("author_id", "title", "rating") select "_1"."id", $3::text, $4::numeric from "_1" returning *, "ctid" as "__service_ctid") select ((
  select count(*)
  from "_1"
) + (
  select count(*)
  from "_2"
) + (
  select count(*)
  from "_3"
))::int as "affected", array(
  select "__service_ctid"
  from "_1"
)::text as "top"
from (
  select set_config('service.user', $5::text, true)
) as "_session"
-- $1 = "Fen"
-- $2 = "First"
-- $3 = "Second"
-- $4 = "4.5"
-- $5 = "{\"x-service-role\":\"admin\"}"

select ((
  select json_build_object('name', "_4"."name", 'articles', (
    select coalesce(json_agg(json_build_object('title', "_5"."title", 'rating', "_5"."rating", 'author', (
      select json_build_object('name', "_6"."name")
      from "public"."author" as "_6"
      where "_6"."id" = "_5"."author_id"
    )) order by "_5"."title" asc nulls last), '[]')
    from "public"."article" as "_5"
    where "_5"."author_id" = "_4"."id"
  ))
  from "public"."author" as "_4"
  where "_4"."ctid" = any($1::tid[])
  limit 1
))::text as "data"
-- $1 = "{\"(0,4)\"}"
