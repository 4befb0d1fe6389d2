select json_build_object('category', (
  select coalesce(json_agg(json_build_object('id', "_1"."id", 'path', "_1"."path") order by "_1"."id" asc nulls last), '[]')
  from "public"."category" as "_1"
  where ("_1"."path" OPERATOR("public".<@) $1::"public"."ltree") and ("_1"."path" OPERATOR("public".~) $2::"public"."lquery")
))::text as "data"
-- $1 = "Top.Science"
-- $2 = "*.Astronomy.*"
