-- A cheap test: whether a line might hold a field of queries/functions/checked_fields.sql
-- whose JSON type is wrong. It is true wherever an integer field's value does not start
-- with a digit, goes on with a fraction or exponent, or has 16 digits or more (beyond 2^53,
-- maybe), wherever a string field's value is neither a string nor null, and wherever a key
-- holds an escape (`"tu\u0072n"` is the key `turn` to every JSON reader: only the exact
-- check can tell which key it is). A key is a string that follows a `{` or a `,` and has
-- a `:` after it. Inside a string every `"` but its closing one is escaped, so a `{` or
-- a `,` there is followed by no quote that opens a key: the `\": ` of
-- `awk '{print NR\": \"$0}'` in a command is no key. Loading asks `wrong_field_index`
-- only of the lines this finds (it costs about ten times the scan a byte). One scan
-- of the text, no parse. Where it can, it looks only at the members after the first: a
-- line that holds no backslash (so no escape, in a key or anywhere) and starts with
-- `{"event_type":"` has a string for its first member, and every other member of its
-- object follows a `,` (and white space), so only a key right after a comma is looked at
-- and the automaton skips from comma to comma, not from quote to quote (one thread, 1,500
-- simulated sessions, 45.6 MB, medians of nine: 0.24 s of CPU for the scan of every key,
-- 0.23 s with the escapes looked for only where there is a backslash, 0.17 s so; the first
-- key of a nested object, which loading never checks, is passed over). Other lines get
-- the whole scan. Its callers ask it only of lines that are valid JSON.
-- @param raw VARCHAR  A line of a trace, valid JSON.
-- @column result BOOLEAN  False when no field of the line can be of the wrong type.
CASE
    WHEN NOT contains(raw, '\') AND starts_with(raw, '{"event_type":"')
        THEN regexp_matches(raw, ',\s*(?:' || wrong_type_keys() || ')')
    -- and a key written with an escape: a string after a `{` or a `,` holding a `\`
    ELSE regexp_matches(raw, wrong_type_keys() || '|[{,]\s*"(?:[^"\\]*\\.)+[^"\\]*"\s*:')
END
