select json_build_object('article_aggregate', (
  select json_build_object('aggregate', json_build_object('count', count(*), 'max', json_build_object('rating', max("_1"."rating"))), 'nodes', coalesce(to_json((array_agg(json_build_object('id', "_1"."id", 'title', "_1"."title") order by "_1"."id" desc nulls first))[1:$1::int4]), '[]'))
  from "public"."article" as "_1"
))::text as "data"
-- $1 = 2
