with "_2" as (update "public"."article" as "_1" set "title" = $1::text where "_1"."author_id" = $2::int4 returning *) select (json_build_object('affected_rows', (
  select count(*)
  from "_2" as "_3"
)::int, 'returning', (
  select coalesce(json_agg(json_build_object('id', "_4"."id", 'title', "_4"."title")), '[]')
  from "_2" as "_4"
  where ("_4"."is_published" = $3::bool) or ("_4"."author_id" = $2::int4)
)))::text as "data", (
  select coalesce(bool_and("_5"."rating" <= $4::numeric), true)
  from "_2" as "_5"
) as "check_ok"
from (
  select set_config('service.user', $5::text, true)
) as "_session"
-- $1 = "Mine"
-- $2 = "2"
-- $3 = true
-- $4 = 5
-- $5 = "{\"x-service-user-id\":\"2\",\"x-service-role\":\"user\"}"
