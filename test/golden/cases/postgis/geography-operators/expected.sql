select json_build_object('d_within', (
  select coalesce(json_agg(json_build_object('id', "_1"."id", 'area', "public"."st_asgeojson"("_1"."area", 15, 4)::json) order by "_1"."id" asc nulls last), '[]')
  from "public"."shape" as "_1"
  where "public"."st_dwithin"("_1"."area", "public"."st_geomfromgeojson"($1::text)::"public"."geography", $2::float8, true)
), 'flat', (
  select coalesce(json_agg(json_build_object('id', "_2"."id") order by "_2"."id" asc nulls last), '[]')
  from "public"."shape" as "_2"
  where "public"."st_dwithin"("_2"."area", "public"."st_geomfromgeojson"($1::text)::"public"."geography", $3::float8, $4::bool)
), 'intersects', (
  select coalesce(json_agg(json_build_object('id', "_3"."id")), '[]')
  from "public"."shape" as "_3"
  where "public"."st_intersects"("_3"."area", "public"."st_geomfromgeojson"($5::text)::"public"."geography")
), 'cast', (
  select coalesce(json_agg(json_build_object('id', "_4"."id") order by "_4"."id" asc nulls last), '[]')
  from "public"."shape" as "_4"
  where "public"."st_within"(("_4"."area")::"public"."geometry", "public"."st_geomfromgeojson"($6::text))
), 'cast_back', (
  select coalesce(json_agg(json_build_object('id', "_5"."id") order by "_5"."id" asc nulls last), '[]')
  from "public"."shape" as "_5"
  where "public"."st_dwithin"(("_5"."geom")::"public"."geography", "public"."st_geomfromgeojson"($7::text)::"public"."geography", $8::float8, true)
))::text as "data"
-- $1 = "{\"type\":\"Point\",\"coordinates\":[2.3522,48.8566]}"
-- $2 = "20000"
-- $3 = "20000"
-- $4 = false
-- $5 = "{\"type\":\"Polygon\",\"coordinates\":[[[4,45],[4,46],[5,46],[5,45],[4,45]]]}"
-- $6 = "{\"type\":\"Polygon\",\"coordinates\":[[[2,48],[2,49],[3,49],[3,48],[2,48]]]}"
-- $7 = "{\"type\":\"Point\",\"coordinates\":[1,1]}"
-- $8 = "1000"
