select json_build_object('author', (
  select coalesce(json_agg(json_build_object('name', "_1"."name", 'articles_aggregate', (
    select json_build_object('aggregate', json_build_object('count', count(*), 'avg', json_build_object('rating', avg("_4"."rating"))))
    from "public"."article" as "_4"
    where ("_4"."author_id" = "_1"."id") and ("_4"."is_published" = $1::bool)
  )) order by (
    select count(*)
    from "public"."article" as "_2"
    where "_2"."author_id" = "_1"."id"
  ) desc nulls first, (
    select max("_3"."rating")
    from "public"."article" as "_3"
    where "_3"."author_id" = "_1"."id"
  ) desc nulls last, "_1"."id" asc nulls last), '[]')
  from "public"."author" as "_1"
))::text as "data"
-- $1 = true
