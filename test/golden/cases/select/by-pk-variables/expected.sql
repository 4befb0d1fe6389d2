select json_build_object('article_by_pk', (
  select json_build_object('id', "_1"."id", 'title', "_1"."title", 'views', "_1"."views", 'author', (
    select json_build_object('id', "_2"."id", 'name', "_2"."name")
    from "public"."author" as "_2"
    where "_2"."id" = "_1"."author_id"
  ))
  from "public"."article" as "_1"
  where "_1"."id" = $1::int4
), 'missing', (
  select json_build_object('id', "_3"."id")
  from "public"."article" as "_3"
  where "_3"."id" = $2::int4
))::text as "data"
-- $1 = 1
-- $2 = "404"
