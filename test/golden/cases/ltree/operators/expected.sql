select json_build_object('ancestor', (
  select coalesce(json_agg(json_build_object('id', "_1"."id", 'path', "_1"."path") order by "_1"."id" asc nulls last), '[]')
  from "public"."category" as "_1"
  where "_1"."path" OPERATOR("public".@>) $1::"public"."ltree"
), 'ancestor_any', (
  select coalesce(json_agg(json_build_object('id', "_2"."id") order by "_2"."id" asc nulls last), '[]')
  from "public"."category" as "_2"
  where "_2"."path" OPERATOR("public".@>) $2::"public"."ltree"[]
), 'descendant', (
  select coalesce(json_agg(json_build_object('id', "_3"."id") order by "_3"."id" asc nulls last), '[]')
  from "public"."category" as "_3"
  where "_3"."path" OPERATOR("public".<@) $3::"public"."ltree"
), 'descendant_any', (
  select coalesce(json_agg(json_build_object('id', "_4"."id") order by "_4"."id" asc nulls last), '[]')
  from "public"."category" as "_4"
  where "_4"."path" OPERATOR("public".<@) $4::"public"."ltree"[]
), 'matches', (
  select coalesce(json_agg(json_build_object('id', "_5"."id") order by "_5"."id" asc nulls last), '[]')
  from "public"."category" as "_5"
  where "_5"."path" OPERATOR("public".~) $5::"public"."lquery"
), 'matches_any', (
  select coalesce(json_agg(json_build_object('id', "_6"."id") order by "_6"."id" asc nulls last), '[]')
  from "public"."category" as "_6"
  where "_6"."path" OPERATOR("public".?) $6::"public"."lquery"[]
), 'matches_fulltext', (
  select coalesce(json_agg(json_build_object('id', "_7"."id") order by "_7"."id" asc nulls last), '[]')
  from "public"."category" as "_7"
  where "_7"."path" OPERATOR("public".@) $7::"public"."ltxtquery"
), 'membership', (
  select coalesce(json_agg(json_build_object('id', "_8"."id")), '[]')
  from "public"."category" as "_8"
  where ("_8"."path" OPERATOR("public".=) any($8::"public"."ltree"[])) and ("_8"."path" OPERATOR("public".<>) $9::"public"."ltree")
))::text as "data"
-- $1 = "Top.Science.Astronomy"
-- $2 = ["Top.Science","Top.Hobbies.Amateurs_Astronomy"]
-- $3 = "Top.Science"
-- $4 = ["Top.Hobbies","Top.Collections"]
-- $5 = "*.Astronomy.*"
-- $6 = ["*.Cosmology","Top.Hobbies"]
-- $7 = "Astronomy & !Pictures"
-- $8 = ["Top","Top.Hobbies"]
-- $9 = "Top"
