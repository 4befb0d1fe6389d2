select json_build_object('author', (
  select coalesce(json_agg(json_build_object('id', "_1"."id", 'initial', "public"."author_initial"("_1"::"public"."author"), 'comments_like', (
    select coalesce(json_agg(json_build_object('id', "_2"."id", 'body', "_2"."body") order by "_2"."id" desc nulls first), '[]')
    from (
      select *
      from "public"."author_comments_like"("_1"::"public"."author", $2::text) as "_2"
      order by "_2"."id" desc nulls first
      limit 1
    ) as "_2"
  )) order by "public"."author_initial"("_1"::"public"."author") desc nulls first, "_1"."id" asc nulls last), '[]')
  from (
    select *
    from "public"."author" as "_1"
    where "public"."author_initial"("_1"::"public"."author") = any($1::text[])
    order by "public"."author_initial"("_1"::"public"."author") desc nulls first, "_1"."id" asc nulls last
    limit 2
  ) as "_1"
))::text as "data"
-- $1 = ["A","B","D"]
-- $2 = "%e%"
