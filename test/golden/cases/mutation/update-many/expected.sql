with "_2" as (update "public"."article" as "_1" set "rating" = $1::numeric where "_1"."id" = $2::int4 returning *) select (json_build_object('affected_rows', (
  select count(*)
  from "_2" as "_3"
)::int, 'returning', (
  select coalesce(json_agg(json_build_object('id', "_4"."id", 'rating', "_4"."rating", 'views', "_4"."views")), '[]')
  from "_2" as "_4"
)))::text as "data"
from (
  select set_config('service.user', $3::text, true)
) as "_session"
-- $1 = "1.5"
-- $2 = "1"
-- $3 = "{\"x-service-role\":\"admin\"}"

with "_6" as (update "public"."article" as "_5" set "views" = "_5"."views" + $1::int8 where "_5"."rating" < $2::numeric returning *) select (json_build_object('affected_rows', (
  select count(*)
  from "_6" as "_7"
)::int, 'returning', (
  select coalesce(json_agg(json_build_object('id', "_8"."id", 'rating', "_8"."rating", 'views', "_8"."views")), '[]')
  from "_6" as "_8"
)))::text as "data"
from (
  select set_config('service.user', $3::text, true)
) as "_session"
-- $1 = "1"
-- $2 = "2"
-- $3 = "{\"x-service-role\":\"admin\"}"
