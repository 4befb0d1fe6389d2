select json_build_object('article', (
  select coalesce(json_agg(json_build_object('id', "_1"."id", 'title', "_1"."title", 'is_published', "_1"."is_published", 'comments', (
    select coalesce(json_agg(json_build_object('body', "_2"."body")), '[]')
    from "public"."comment" as "_2"
    where ("_2"."article_id" = "_1"."id") and (exists (
      select 1
      from "public"."article" as "_3"
      where ("_3"."id" = "_2"."article_id") and ("_3"."is_published" = $3::bool)
    ))
  )) order by "_1"."id" asc nulls last), '[]')
  from "public"."article" as "_1"
  where ("_1"."is_published" = $1::bool) or ("_1"."author_id" = $2::int4)
))::text as "data"
-- $1 = true
-- $2 = "1"
-- $3 = true
