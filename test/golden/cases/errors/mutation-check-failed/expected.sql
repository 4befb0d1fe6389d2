with "_1" as (insert into "public"."article" ("author_id", "title", "body", "rating", "views") values ($1::int4, $2::text, $3::text, $4::numeric, $5::int8) returning *) select (json_build_object('affected_rows', (
  select count(*)
  from "_1" as "_2"
)::int))::text as "data", (
  select coalesce(bool_and("_3"."author_id" = $6::int4), true)
  from "_1" as "_3"
) as "check_ok"
from (
  select set_config('service.user', $7::text, true)
) as "_session"
-- $1 = "2"
-- $2 = "Not mine"
-- $3 = "B"
-- $4 = "1"
-- $5 = 0
-- $6 = "1"
-- $7 = "{\"x-service-user-id\":\"1\",\"x-service-role\":\"user\"}"
