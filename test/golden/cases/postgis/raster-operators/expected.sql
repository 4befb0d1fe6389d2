select json_build_object('geom_nband', (
  select coalesce(json_agg(json_build_object('id', "_1"."id")), '[]')
  from "public"."tile" as "_1"
  where "public"."st_intersects"("_1"."rast", "public"."st_geomfromgeojson"($1::text), null::int4)
), 'geom_nband_1', (
  select coalesce(json_agg(json_build_object('id', "_2"."id")), '[]')
  from "public"."tile" as "_2"
  where "public"."st_intersects"("_2"."rast", "public"."st_geomfromgeojson"($2::text), $3::int4)
), 'nband_geom', (
  select coalesce(json_agg(json_build_object('id', "_3"."id")), '[]')
  from "public"."tile" as "_3"
  where "public"."st_intersects"("_3"."rast", $4::int4, "public"."st_geomfromgeojson"($5::text))
), 'rast', (
  select coalesce(json_agg(json_build_object('id', "_4"."id", 'rast', "_4"."rast")), '[]')
  from "public"."tile" as "_4"
  where "public"."st_intersects"("_4"."rast", "public"."st_rastfromhexwkb"($6::text))
))::text as "data"
-- $1 = "{\"type\":\"Point\",\"coordinates\":[1,1]}"
-- $2 = "{\"type\":\"Point\",\"coordinates\":[11,11]}"
-- $3 = "1"
-- $4 = "1"
-- $5 = "{\"type\":\"Point\",\"coordinates\":[11,11]}"
-- $6 = "0100000100000000000000F03F000000000000F0BF0000000000000000000000000000004000000000000000000000000000000000E610000002000200440001010101"
