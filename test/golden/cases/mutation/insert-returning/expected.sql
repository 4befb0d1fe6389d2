with "_1" as (insert into "public"."author" ("name", "email", "tags", "profile") values ($1::text, $2::text, $3::_text, default), ($4::text, default, default, $5::jsonb) returning *) select (json_build_object('affected_rows', (
  select count(*)
  from "_1" as "_2"
)::int, 'returning', (
  select coalesce(json_agg(json_build_object('name', "_3"."name", 'email', "_3"."email", 'tags', "_3"."tags", 'profile', "_3"."profile")), '[]')
  from "_1" as "_3"
)))::text as "data"
from (
  select set_config('service.user', $6::text, true)
) as "_session"
-- $1 = "Dora"
-- $2 = "dora@example.com"
-- $3 = ["x"]
-- $4 = "Eli"
-- $5 = "{\"lang\":\"nl\"}"
-- $6 = "{\"x-service-role\":\"admin\"}"
