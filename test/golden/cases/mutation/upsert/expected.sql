with "_2" as (insert into "public"."author" as "_1" ("id", "name") values ($1::int4, $2::text) on conflict on constraint "author_pkey" do update set "name" = excluded."name" where "_1"."mood" = $3::"public"."mood" returning *, ("xmax" = 0) as "__service_inserted") select ((
  select json_build_object('id', "_3"."id", 'name', "_3"."name")
  from "_2" as "_3"
  limit 1
))::text as "data"
from (
  select set_config('service.user', $4::text, true)
) as "_session"
-- $1 = "2"
-- $2 = "Brian K."
-- $3 = "sad"
-- $4 = "{\"x-service-role\":\"admin\"}"
