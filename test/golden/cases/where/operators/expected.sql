select json_build_object('like', (
  select coalesce(json_agg(json_build_object('id', "_1"."id", 'name', "_1"."name") order by "_1"."id" asc nulls last), '[]')
  from "public"."author" as "_1"
  where ("_1"."name" ilike $1::text) and ("_1"."email" is not null)
), 'membership', (
  select coalesce(json_agg(json_build_object('id', "_2"."id", 'rating', "_2"."rating") order by "_2"."id" desc nulls first), '[]')
  from "public"."article" as "_2"
  where ("_2"."id" = any($2::int4[])) and ("_2"."rating" >= $3::numeric)
), 'combined', (
  select coalesce(json_agg(json_build_object('id', "_3"."id", 'views', "_3"."views") order by "_3"."id" asc nulls last), '[]')
  from "public"."article" as "_3"
  where (("_3"."views" > $4::int8) or (not ("_3"."is_published" = $5::bool))) and ("_3"."title" not like $6::text)
), 'regex', (
  select coalesce(json_agg(json_build_object('name', "_4"."name")), '[]')
  from "public"."author" as "_4"
  where ("_4"."name" ~ $7::text) and ("_4"."id" <> $8::int4)
))::text as "data"
-- $1 = "%a%"
-- $2 = ["1","3","5"]
-- $3 = "2.5"
-- $4 = "100"
-- $5 = true
-- $6 = "Drafts"
-- $7 = "^[AB]"
-- $8 = "2"
