select json_build_object('article', (
  select coalesce(json_agg(json_build_object('id', "_1"."id", 'title', "_1"."title") order by "_1"."id" asc nulls last), '[]')
  from (
    select *
    from "public"."article" as "_1"
    where "_1"."is_published" = $1::bool
    order by "_1"."id" asc nulls last
    limit 2
  ) as "_1"
), 'author', (
  select coalesce(json_agg(json_build_object('name', "_2"."name", 'articles', (
    select coalesce(json_agg(json_build_object('title', "_4"."title") order by "_4"."id" asc nulls last), '[]')
    from (
      select *
      from "public"."article" as "_4"
      where ("_4"."author_id" = "_2"."id") and ("_4"."is_published" = $3::bool)
      order by "_4"."id" asc nulls last
      limit 2
    ) as "_4"
  )) order by "_2"."id" asc nulls last), '[]')
  from "public"."author" as "_2"
  where exists (
    select 1
    from "public"."article" as "_3"
    where ("_3"."author_id" = "_2"."id") and ("_3"."is_published" = $2::bool)
  )
))::text as "data"
-- $1 = true
-- $2 = true
-- $3 = true
