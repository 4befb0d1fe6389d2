select json_build_object('my_comments', (
  select coalesce(json_agg(json_build_object('id', "_1"."id", 'body', "_1"."body", 'article', (
    select json_build_object('title', "_3"."title")
    from "public"."article" as "_3"
    where ("_3"."id" = "_1"."article_id") and (("_3"."is_published" = $3::bool) or ("_3"."author_id" = $4::int4))
  )) order by "_1"."id" asc nulls last), '[]')
  from "public"."my_comments"($1::json) as "_1"
  where exists (
    select 1
    from "public"."article" as "_2"
    where ("_2"."id" = "_1"."article_id") and ("_2"."is_published" = $2::bool)
  )
))::text as "data"
-- $1 = "{\"x-service-user-id\":\"2\",\"x-service-role\":\"user\"}"
-- $2 = true
-- $3 = true
-- $4 = "2"
