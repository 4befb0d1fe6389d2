select json_build_object('first', (
  select coalesce(json_agg(json_build_object('id', "_1"."id", 'rating', "_1"."rating", 'author', (
    select json_build_object('name', "_2"."name")
    from "public"."author" as "_2"
    where "_2"."id" = "_1"."author_id"
  ), 'heading', "_1"."title", 'body', "_1"."body", '__typename', 'article') order by "_1"."id" asc nulls last), '[]')
  from (
    select *
    from "public"."article" as "_1"
    where "_1"."views" >= $1::int8
    order by "_1"."id" asc nulls last
    limit 2
  ) as "_1"
), '__typename', 'query_root')::text as "data"
-- $1 = "10"
