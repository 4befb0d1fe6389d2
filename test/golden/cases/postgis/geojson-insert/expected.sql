with "_1" as (insert into "public"."shape" ("id", "geom", "area") values ($1::int4, "public"."st_geomfromgeojson"($2::text), "public"."st_geomfromgeojson"($3::text)::"public"."geography") returning *) select ((
  select json_build_object('id', "_2"."id", 'geom', "public"."st_asgeojson"("_2"."geom", 15, 4)::json, 'area', "public"."st_asgeojson"("_2"."area", 15, 4)::json)
  from "_1" as "_2"
  limit 1
))::text as "data"
from (
  select set_config('service.user', $4::text, true)
) as "_session"
-- $1 = "10"
-- $2 = "{\"type\":\"LineString\",\"coordinates\":[[0,0],[1,1]]}"
-- $3 = "{\"type\":\"Point\",\"coordinates\":[7.262,43.7102]}"
-- $4 = "{\"x-service-role\":\"admin\"}"
