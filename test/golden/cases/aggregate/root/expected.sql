select json_build_object('article_aggregate', (
  select json_build_object('aggregate', json_build_object('count', count(*), 'distinct_authors', count(distinct "_1"."author_id"), 'sum', json_build_object('views', sum("_1"."views"), 'rating', sum("_1"."rating")), 'avg', json_build_object('rating', avg("_1"."rating")), 'max', json_build_object('rating', max("_1"."rating"), 'title', max("_1"."title"), 'published_on', max("_1"."published_on")), 'min', json_build_object('rating', min("_1"."rating")), 'stddev', json_build_object('rating', stddev("_1"."rating"))), 'nodes', coalesce(json_agg(json_build_object('id', "_1"."id")), '[]'))
  from "public"."article" as "_1"
  where "_1"."rating" is not null
))::text as "data"
