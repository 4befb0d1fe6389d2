with "_1" as (insert into "public"."article" ("id", "author_id", "title", "body", "rating") values ($1::int4, $2::int4, $3::text, $4::text, $5::numeric) returning *) select ((
  select json_build_object('id', "_2"."id")
  from "_1" as "_2"
  limit 1
))::text as "data"
from (
  select set_config('service.user', $6::text, true)
) as "_session"
-- $1 = "1"
-- $2 = "1"
-- $3 = "Again"
-- $4 = "B"
-- $5 = "1"
-- $6 = "{\"x-service-role\":\"admin\"}"
