select json_build_object('author', (
  select coalesce(json_agg(json_build_object('name', "_1"."name", 'articles', (
    select coalesce(json_agg(json_build_object('title', "_2"."title", 'author', (
      select json_build_object('name', "_3"."name")
      from "public"."author" as "_3"
      where "_3"."id" = "_2"."author_id"
    ), 'comments', (
      select coalesce(json_agg(json_build_object('body', "_4"."body", 'commenter', (
        select json_build_object('name', "_5"."name")
        from "public"."author" as "_5"
        where "_5"."id" = "_4"."commenter_id"
      )) order by "_4"."id" asc nulls last), '[]')
      from "public"."comment" as "_4"
      where "_4"."article_id" = "_2"."id"
    )) order by "_2"."id" asc nulls last), '[]')
    from (
      select *
      from "public"."article" as "_2"
      where ("_2"."author_id" = "_1"."id") and ("_2"."is_published" = $1::bool)
      order by "_2"."id" asc nulls last
      limit 1
    ) as "_2"
  )) order by "_1"."id" asc nulls last), '[]')
  from (
    select *
    from "public"."author" as "_1"
    order by "_1"."id" asc nulls last
    limit 2
  ) as "_1"
))::text as "data"
-- $1 = true
