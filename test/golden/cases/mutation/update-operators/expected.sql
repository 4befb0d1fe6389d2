with "_2" as (update "public"."author" as "_1" set "email" = $1::text, "profile" = "_1"."profile" || $2::jsonb where "_1"."name" = $3::text returning *) select (json_build_object('affected_rows', (
  select count(*)
  from "_2" as "_3"
)::int, 'returning', (
  select coalesce(json_agg(json_build_object('email', "_4"."email", 'profile', "_4"."profile")), '[]')
  from "_2" as "_4"
)))::text as "data"
from (
  select set_config('service.user', $4::text, true)
) as "_session"
-- $1 = "ada@lovelace.org"
-- $2 = "{\"title\":\"Countess\"}"
-- $3 = "Ada"
-- $4 = "{\"x-service-role\":\"admin\"}"

with "_6" as (update "public"."article" as "_5" set "views" = "_5"."views" + $1::int8 where "_5"."id" = $2::int4 returning *) select ((
  select json_build_object('id', "_7"."id", 'views', "_7"."views")
  from "_6" as "_7"
  limit 1
))::text as "data"
from (
  select set_config('service.user', $3::text, true)
) as "_session"
-- $1 = "1"
-- $2 = "3"
-- $3 = "{\"x-service-role\":\"admin\"}"
