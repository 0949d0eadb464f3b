-- The lines of Murmur traces as `redundant --policy reference` needs them, read without
-- parsing what it does not use: whether each line is an event loading takes as it is, and
-- the text of the tool calls.
--
-- Reads the files named by the variable `quick_files` (SET VARIABLE), split at newlines as
-- every reader splits them (queries/functions/file_lines.sql: blank lines keep their
-- numbers and are left out).
-- Every line is parsed once to validate it (json_valid). A line whose text starts with
-- `{"event_type":"tool_call"` is a tool call (its first key decides: a JSON reader takes
-- the first of duplicate keys); one that starts with `{"event_type":"` and a string with no
-- escape in it is another event; only other lines have their event type parsed. The type
-- checks of loading run where their cheap scan finds something (`may_have_wrong_types`).
-- A line that is not `readable` makes the whole trace one for queries/load/lines.sql,
-- which names what is wrong (queries/quick/traces.sql).
-- @column file_index BIGINT   Position of the trace in `quick_files`, from 0.
-- @column line       BIGINT   1-based line number, counting blank lines.
-- @column tool_call  BOOLEAN  The line is a `tool_call` event.
-- @column readable   BOOLEAN  Valid JSON, an object whose `event_type` is a string, every field of its type (queries/functions/event_fields.sql) of its JSON type.
-- @column named_session BOOLEAN  For a tool call: it names its session (`session_id` a string); NULL for other lines.
-- @column raw        VARCHAR  The line as written (white space around it left out), for tool calls; NULL for other lines.
WITH split AS MATERIALIZED (
    -- split as every reader splits (queries/functions/file_lines.sql): a file that is not
    -- UTF-8 keeps one line whose text is NULL, which is not `readable`
    SELECT file_index, line, raw
    FROM file_lines(getvariable('quick_files'))
),
parsed AS (
    SELECT
        file_index,
        line,
        raw,
        json_valid(raw) AS valid,
        CASE
            WHEN starts_with(raw, '{"event_type":"tool_call"') THEN 'tool_call'
            -- no `\` in the line: no escape (a test far cheaper than the expression,
            -- which 3 % of the real lines need: this reading 5-8 % faster)
            WHEN starts_with(raw, '{"event_type":"')
                AND (NOT contains(raw, '\') OR regexp_matches(raw, '^\{"event_type":"[^"\\]*"'))
                THEN 'other'
        END AS written_kind
    FROM split
),
typed AS (
    SELECT
        *,
        -- the event type of the lines whose text does not say it (a space, another key
        -- first, an escape): NULL when the line is no object or has no event type
        CASE WHEN valid AND written_kind IS NULL AND json_type(raw) = 'OBJECT' THEN
            json_transform(raw, '{"event_type": "VARCHAR"}').event_type
        END AS parsed_type
    FROM parsed
),
kinds AS (
    SELECT
        *,
        CASE
            WHEN NOT valid THEN NULL
            WHEN written_kind IS NOT NULL THEN written_kind
            WHEN parsed_type = 'tool_call' THEN 'tool_call'
            WHEN parsed_type IS NOT NULL THEN 'other'
        END AS kind
    FROM typed
)
SELECT
    file_index,
    line,
    coalesce(kind = 'tool_call', false) AS tool_call,
    CASE
        WHEN kind IS NULL THEN false
        WHEN may_have_wrong_types(raw) THEN wrong_field_index(raw) IS NULL
        ELSE true
    END AS readable,
    -- a tool call that names no session takes the trace's: its trace is loaded whole
    CASE
        WHEN kind IS DISTINCT FROM 'tool_call' THEN NULL
        WHEN starts_with(raw, '{"event_type":"tool_call","session_id":"') THEN true
        ELSE json_transform(raw, '{"session_id": "VARCHAR"}').session_id IS NOT NULL
    END AS named_session,
    CASE WHEN kind = 'tool_call' THEN raw END AS raw
FROM kinds
