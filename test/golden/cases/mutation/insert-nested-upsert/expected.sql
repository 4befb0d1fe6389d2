with "_2" as (insert into "public"."author" as "_1" ("id", "name") values ($2::int4, $3::text) on conflict on constraint "author_pkey" do update set "name" = excluded."name" returning *, ("xmax" = 0) as "__service_inserted", "ctid" as "__service_ctid"), "_3" as (insert into "public"."article" ("author_id", "title") select "_2"."id", $1::text from "_2" returning *, "ctid" as "__service_ctid") select ((
  select count(*)
  from "_2"
) + (
  select count(*)
  from "_3"
))::int as "affected", array(
  select "__service_ctid"
  from "_3"
)::text as "top", case when not exists (
  select
  from "_2"
) then 0 end as "failure"
from (
  select set_config('service.user', $4::text, true)
) as "_session"
-- $1 = "Upserted author"
-- $2 = "1"
-- $3 = "Ada X"
-- $4 = "{\"x-service-role\":\"admin\"}"

select ((
  select json_build_object('title', "_4"."title", 'author', (
    select json_build_object('id', "_5"."id", 'name', "_5"."name")
    from "public"."author" as "_5"
    where "_5"."id" = "_4"."author_id"
  ))
  from "public"."article" as "_4"
  where "_4"."ctid" = any($1::tid[])
  limit 1
))::text as "data"
-- $1 = "{\"(0,11)\"}"
