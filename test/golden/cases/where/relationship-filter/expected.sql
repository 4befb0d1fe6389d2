select json_build_object('author', (
  select coalesce(json_agg(json_build_object('name', "_1"."name")), '[]')
  from "public"."author" as "_1"
  where exists (
    select 1
    from "public"."article" as "_2"
    where ("_2"."author_id" = "_1"."id") and (exists (
      select 1
      from "public"."comment" as "_3"
      where ("_3"."article_id" = "_2"."id") and ("_3"."body" = $1::text)
    ))
  )
), 'article', (
  select coalesce(json_agg(json_build_object('title', "_4"."title") order by "_4"."id" asc nulls last), '[]')
  from (
    select *
    from "public"."article" as "_4"
    where exists (
      select 1
      from "public"."author" as "_5"
      where ("_5"."id" = "_4"."author_id") and ("_5"."name" = $2::text)
    )
    order by "_4"."id" asc nulls last
    offset 1
  ) as "_4"
))::text as "data"
-- $1 = "Classic"
-- $2 = "Ada"
