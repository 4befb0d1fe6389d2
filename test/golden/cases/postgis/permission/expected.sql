select json_build_object('shape', (
  select coalesce(json_agg(json_build_object('id', "_1"."id") order by "_1"."id" asc nulls last), '[]')
  from "public"."shape" as "_1"
  where ("public"."st_dwithin"("_1"."geom", "public"."st_geomfromgeojson"($1::text), $2::float8)) and ("public"."st_intersects"("_1"."geom", "public"."st_geomfromgeojson"($3::text)))
))::text as "data"
-- $1 = "{\"type\":\"Point\",\"coordinates\":[0,0]}"
-- $2 = 1.5
-- $3 = "{\"type\":\"Point\",\"coordinates\":[2,1]}"
