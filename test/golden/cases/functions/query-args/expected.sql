select json_build_object('search_comments', (
  select coalesce(json_agg(json_build_object('id', "_1"."id", 'body', "_1"."body") order by "_1"."id" desc nulls first), '[]')
  from (
    select *
    from "public"."search_comments"($1::text) as "_1"
    where "_1"."article_id" < $2::int4
    order by "_1"."id" desc nulls first
    limit 2
  ) as "_1"
))::text as "data"
-- $1 = "%a%"
-- $2 = "5"
