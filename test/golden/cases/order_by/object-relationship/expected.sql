select json_build_object('comment', (
  select coalesce(json_agg(json_build_object('body', "_1"."body", 'article', (
    select json_build_object('title', "_5"."title")
    from "public"."article" as "_5"
    where "_5"."id" = "_1"."article_id"
  )) order by (
    select (
      select "_3"."name"
      from "public"."author" as "_3"
      where "_3"."id" = "_2"."author_id"
    )
    from "public"."article" as "_2"
    where "_2"."id" = "_1"."article_id"
  ) desc nulls first, (
    select "_4"."name"
    from "public"."author" as "_4"
    where "_4"."id" = "_1"."commenter_id"
  ) asc nulls first, "_1"."id" asc nulls last), '[]')
  from "public"."comment" as "_1"
))::text as "data"
