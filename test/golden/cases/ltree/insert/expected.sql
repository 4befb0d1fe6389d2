with "_1" as (insert into "public"."category" ("id", "path") values ($1::int4, $2::"public"."ltree") returning *) select ((
  select json_build_object('id', "_2"."id", 'path', "_2"."path")
  from "_1" as "_2"
  where "_2"."path" OPERATOR("public".<@) $3::"public"."ltree"
  limit 1
))::text as "data", (
  select coalesce(bool_and("_3"."path" OPERATOR("public".~) $4::"public"."lquery"), true)
  from "_1" as "_3"
) as "check_ok"
from (
  select set_config('service.user', $5::text, true)
) as "_session"
-- $1 = "10"
-- $2 = "Top.Hobbies.Chess"
-- $3 = "Top"
-- $4 = "Top.Hobbies.*"
-- $5 = "{\"x-service-branch\":\"Top\",\"x-service-role\":\"user\"}"
