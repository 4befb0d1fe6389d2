select json_build_object('contains', (
  select coalesce(json_agg(json_build_object('id', "_1"."id", 'geom', "public"."st_asgeojson"("_1"."geom", 15, 4)::json)), '[]')
  from "public"."shape" as "_1"
  where "public"."st_contains"("_1"."geom", "public"."st_geomfromgeojson"($1::text))
), 'crosses', (
  select coalesce(json_agg(json_build_object('id', "_2"."id")), '[]')
  from "public"."shape" as "_2"
  where "public"."st_crosses"("_2"."geom", "public"."st_geomfromgeojson"($2::text))
), 'equals', (
  select coalesce(json_agg(json_build_object('id', "_3"."id")), '[]')
  from "public"."shape" as "_3"
  where "public"."st_equals"("_3"."geom", "public"."st_geomfromgeojson"($3::text))
), 'intersects', (
  select coalesce(json_agg(json_build_object('id', "_4"."id") order by "_4"."id" asc nulls last), '[]')
  from "public"."shape" as "_4"
  where "public"."st_intersects"("_4"."geom", "public"."st_geomfromgeojson"($4::text))
), 'overlaps', (
  select coalesce(json_agg(json_build_object('id', "_5"."id")), '[]')
  from "public"."shape" as "_5"
  where "public"."st_overlaps"("_5"."geom", "public"."st_geomfromgeojson"($5::text))
), 'touches', (
  select coalesce(json_agg(json_build_object('id', "_6"."id")), '[]')
  from "public"."shape" as "_6"
  where "public"."st_touches"("_6"."geom", "public"."st_geomfromgeojson"($6::text))
), 'within', (
  select coalesce(json_agg(json_build_object('id', "_7"."id") order by "_7"."id" asc nulls last), '[]')
  from "public"."shape" as "_7"
  where "public"."st_within"("_7"."geom", "public"."st_geomfromgeojson"($7::text))
), 'd_within', (
  select coalesce(json_agg(json_build_object('id', "_8"."id") order by "_8"."id" asc nulls last), '[]')
  from "public"."shape" as "_8"
  where "public"."st_dwithin"("_8"."geom", "public"."st_geomfromgeojson"($8::text), $9::float8)
), 'd_within_3d', (
  select coalesce(json_agg(json_build_object('id', "_9"."id")), '[]')
  from "public"."shape" as "_9"
  where ("public"."st_3ddwithin"("_9"."geom", "public"."st_geomfromgeojson"($10::text), $11::float8)) and ("_9"."id" = $12::int4)
), 'intersects_3d', (
  select coalesce(json_agg(json_build_object('id', "_10"."id")), '[]')
  from "public"."shape" as "_10"
  where ("public"."st_3dintersects"("_10"."geom", "public"."st_geomfromgeojson"($13::text))) and ("_10"."id" = $14::int4)
))::text as "data"
-- $1 = "{\"type\":\"Point\",\"coordinates\":[1.5,0.5]}"
-- $2 = "{\"type\":\"LineString\",\"coordinates\":[[-1,0.5],[5,0.5]]}"
-- $3 = "{\"type\":\"Point\",\"coordinates\":[1,1]}"
-- $4 = "{\"type\":\"Point\",\"coordinates\":[2,1]}"
-- $5 = "{\"type\":\"Polygon\",\"coordinates\":[[[1,1],[1,5],[5,5],[5,1],[1,1]]]}"
-- $6 = "{\"type\":\"Point\",\"coordinates\":[0,0]}"
-- $7 = "{\"type\":\"Polygon\",\"coordinates\":[[[-2,-2],[-2,3],[3,3],[3,-2],[-2,-2]]]}"
-- $8 = "{\"type\":\"Point\",\"coordinates\":[1,1.4]}"
-- $9 = "0.5"
-- $10 = "{\"type\":\"Point\",\"coordinates\":[1,1,5.2]}"
-- $11 = "0.5"
-- $12 = "4"
-- $13 = "{\"type\":\"Point\",\"coordinates\":[1,1,5]}"
-- $14 = "4"
