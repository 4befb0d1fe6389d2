with "_1" as (insert into "public"."article" ("author_id", "title", "rating", "views") values ($1::int4, $2::text, $3::numeric, $4::int8) returning *) select ((
  select json_build_object('title', "_2"."title", 'views', "_2"."views", 'author', (
    select json_build_object('name', "_3"."name")
    from "public"."author" as "_3"
    where "_3"."id" = "_2"."author_id"
  ))
  from "_1" as "_2"
  where ("_2"."is_published" = $5::bool) or ("_2"."author_id" = $6::int4)
  limit 1
))::text as "data", (
  select coalesce(bool_and("_4"."author_id" = $6::int4), true)
  from "_1" as "_4"
) as "check_ok"
from (
  select set_config('service.user', $7::text, true)
) as "_session"
-- $1 = "1"
-- $2 = "Checked"
-- $3 = "3"
-- $4 = 0
-- $5 = true
-- $6 = "1"
-- $7 = "{\"x-service-user-id\":\"1\",\"x-service-role\":\"user\"}"
