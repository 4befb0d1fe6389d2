with "_3" as (delete from "public"."comment" as "_1" where exists (
  select 1
  from "public"."article" as "_2"
  where ("_2"."id" = "_1"."article_id") and ("_2"."author_id" = $1::int4)
) returning *) select (json_build_object('affected_rows', (
  select count(*)
  from "_3" as "_4"
)::int, 'returning', (
  select coalesce(json_agg(json_build_object('body', "_5"."body", 'commenter', (
    select json_build_object('name', "_6"."name")
    from "public"."author" as "_6"
    where "_6"."id" = "_5"."commenter_id"
  ))), '[]')
  from "_3" as "_5"
)))::text as "data"
from (
  select set_config('service.user', $2::text, true)
) as "_session"
-- $1 = "1"
-- $2 = "{\"x-service-role\":\"admin\"}"

with "_8" as (delete from "public"."comment" as "_7" where "_7"."id" = $1::int4 returning *) select ((
  select json_build_object('body', "_9"."body")
  from "_8" as "_9"
  limit 1
))::text as "data"
from (
  select set_config('service.user', $2::text, true)
) as "_session"
-- $1 = "3"
-- $2 = "{\"x-service-role\":\"admin\"}"
