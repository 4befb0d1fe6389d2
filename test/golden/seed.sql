-- The data set every golden case and the security suite run against.
create type mood as enum ('happy', 'sad', 'neutral');

create table author (
  id serial primary key,
  name text not null,
  email text,
  birth_date date,
  created_at timestamptz not null default '2020-01-01T00:00:00Z',
  tags text[],
  profile jsonb,
  mood mood
);

create table article (
  id serial primary key,
  author_id int not null references author(id),
  title text not null,
  body text,
  rating numeric(3, 1),
  views bigint not null default 0,
  is_published boolean not null default false,
  published_on date
);

create table comment (
  id serial primary key,
  article_id int not null references article(id),
  commenter_id int references author(id),
  body text not null
);

create schema library;
create table library.shelf (
  id uuid primary key,
  label text not null,
  owner_id int references author(id)
);

insert into author (name, email, birth_date, tags, profile, mood) values
  ('Ada', 'ada@example.com', '1815-12-10', '{math,poetry}', '{"lang": "en", "langs": ["en", "fr"], "age": 36}', 'happy'),
  ('Brian', 'brian@example.com', null, '{c}', '{"lang": "en"}', 'sad'),
  ('Chandra', null, '1990-04-01', null, null, null);

insert into article (author_id, title, body, rating, views, is_published, published_on) values
  (1, 'Notes on the Engine', 'long text', 4.5, 9007199254740993, true, '1843-09-01'),
  (1, 'Poetical Science', null, 3.0, 10, false, null),
  (2, 'The C Book', 'pointers', 5.0, 1000, true, '1978-02-22'),
  (2, 'Unix Philosophy', 'pipes', null, 20, true, '1984-01-01'),
  (3, 'Drafts', 'wip', 2.5, 0, false, null);

insert into comment (article_id, commenter_id, body) values
  (1, 2, 'Visionary'),
  (1, 3, 'Agreed'),
  (3, 1, 'Classic'),
  (2, 2, 'Hidden thoughts'),
  (5, null, 'Anonymous note');

insert into library.shelf (id, label, owner_id) values
  ('00000000-0000-0000-0000-000000000001', 'Mathematics', 1),
  ('00000000-0000-0000-0000-000000000002', 'Systems', 2);

-- Functions of the function-* cases (issue 6): they return comments, which the anonymous role cannot read.
create function search_comments(pattern text, max_id int default 1000) returns setof comment
  language sql stable as $$ select * from comment where body ilike pattern and id <= max_id $$;
create function my_comments(service_session json) returns setof comment
  language sql stable as $$ select * from comment where commenter_id = (service_session ->> 'x-service-user-id')::int $$;
create function author_initial(author_row author) returns text
  language sql immutable as $$ select left(author_row.name, 1) $$;
create function author_comments_like(author_row author, pattern text) returns setof comment
  language sql stable as $$ select * from comment where commenter_id = author_row.id and body ilike pattern $$;
