select json_build_object('article_aggregate', (
  select json_build_object('aggregate', json_build_object('count', count(*), 'max', json_build_object('rating', max("_1"."rating"))), 'nodes', coalesce(to_json((array_agg(json_build_object('id', "_1"."id", 'title', "_1"."title") order by "_1"."id" desc nulls first))[1:$2::int4]), '[]'))
  from "public"."article" as "_1"
  where "_1"."is_published" = $1::bool
))::text as "data"
-- $1 = true
-- $2 = 2
