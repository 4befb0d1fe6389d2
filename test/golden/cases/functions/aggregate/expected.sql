select json_build_object('search_comments_aggregate', (
  select json_build_object('aggregate', json_build_object('count', count(*), 'max', json_build_object('id', max("_1"."id"))), 'nodes', coalesce(json_agg(json_build_object('id', "_1"."id")), '[]'))
  from "public"."search_comments"($1::text, $2::int4) as "_1"
))::text as "data"
-- $1 = "%"
-- $2 = "4"
