/**
 * The engine runs in production mode unless told otherwise, as its Docker image does
 * (`ENV NODE_ENV=production`). The one dependency that reads NODE_ENV at run time is
 * graphql-js: outside production, each of its `instanceof` checks that fails (asking an
 * input object type whether it is a scalar, while coercing a variable) also compares the
 * two classes' names, to warn of a second copy of graphql-js. It reads NODE_ENV once, when
 * it loads, so this module is main.ts's first import. A NODE_ENV that is set is kept; an
 * empty one (a compose file passing an unset variable through) counts as unset.
 */
process.env.NODE_ENV ||= 'production';
