-- Tool calls with the resource each one addressed: identity resolution of SPEC section 3.
--
-- The identity is the declared `resource_id` when it is a non-empty string. Otherwise it
-- is guessed from `input` when that is a JSON object: the keys `path`, `file`, `file_path`,
-- `filepath`, `filename` are looked for in that priority order, each compared lower-cased
-- (`File_Path` matches `file_path`) as `mur trace` lower-cases it (Rust's to_lowercase:
-- `İ`, U+0130, becomes `i` and a combining dot, which DuckDB's lower maps to `i` alone, so
-- `FİLE` is no `file`); when several keys lower-case to the same name the
-- byte-wise smallest is tried first; a value that is not a JSON string is passed over.
-- (The keys are folded here as queries/functions/path_key_rank.sql folds them, written out:
-- this query runs on a bare DuckDB connection too, over an export's events.)
-- The identity is taken verbatim: no trimming, no normalisation. A call with neither has
-- `resource` NULL and takes no part in redundancy detection.
-- @column trace_path      VARCHAR  The trace file.
-- @column line            BIGINT   Line of the call in its trace.
-- @column session_id      VARCHAR  Session of the call.
-- @column turn            BIGINT   Turn of the call; a missing turn counts as 0.
-- @column tool_name       VARCHAR  As written.
-- @column input           JSON     The call's input, verbatim.
-- @column status          VARCHAR  `ok` / `error`, as written.
-- @column state_effect    VARCHAR  Declared effect (`read`, `mutate`, anything else = unknown).
-- @column resource        VARCHAR  The resolved identity, NULL when the call has none.
-- @column resource_source VARCHAR  `declared` (resource_id) or `path_field` (guessed), NULL with resource.
-- @column input_path      VARCHAR  The path guessed from input, even when a resource_id was declared.
-- @column output_bytes    BIGINT   Size of the call's output.
-- @column duration_ms     BIGINT   Wall time of the call.
-- @column timestamp       BIGINT   Unix ms, as written (NULL in older traces).
-- @column task_id         VARCHAR  Task of the call, on newer runtimes.
-- @column call_id         VARCHAR  The source's id of the call: the line's `event_id` (Murmur), the
--                                  `tool_use` id (Claude Code), `call_id` (Codex), action id (OpenHands).
-- @column cwd             VARCHAR  Working directory of the call, where the format records it.
-- @column result_whole    BOOLEAN  The call returned its whole resource, where the format says (else NULL).
-- @column changed_paths   VARCHAR[] Files the call changed besides its resource, where the format says (a Codex patch).
-- @column first_line      BIGINT   First line of its file a read returned, where the format says.
-- @column last_line       BIGINT   Last line it returned (NULL with first_line: to the end of the file).
-- @column file_session    VARCHAR  Its session, in a file of several sessions (an OpenHands output); else NULL.
WITH candidates AS (
    SELECT
        input,
        CASE WHEN json_type(input) = 'OBJECT' THEN
            list_filter(
                json_keys(input),
                lambda k: lower(replace(k, chr(304), 'i' || chr(775)))
                    IN ('path', 'file', 'file_path', 'filepath', 'filename')
            )
        END AS path_keys
    -- the guess depends on the input alone: made once for each distinct input
    FROM (SELECT DISTINCT input FROM events WHERE event_type = 'tool_call')
),
guesses AS (
    SELECT
        input,
        CASE
            WHEN len(path_keys) = 0 THEN NULL
            -- the usual case, every candidate key lower-case and written once: read the
            -- five fields straight and take the first string in priority order (a field
            -- json_transform gives as JSON is re-serialised: it starts with `"` exactly when
            -- it is a string; one key needs no list_distinct)
            WHEN path_keys = list_transform(path_keys, lambda k: lower(k))
                AND (len(path_keys) = 1 OR len(list_distinct(path_keys)) = len(path_keys))
                THEN coalesce(
                    CASE WHEN starts_with(fields.path, '"') THEN fields.path ->> '$' END,
                    CASE WHEN starts_with(fields.file, '"') THEN fields.file ->> '$' END,
                    CASE WHEN starts_with(fields.file_path, '"') THEN fields.file_path ->> '$' END,
                    CASE WHEN starts_with(fields.filepath, '"') THEN fields.filepath ->> '$' END,
                    CASE WHEN starts_with(fields.filename, '"') THEN fields.filename ->> '$' END
                )
            -- otherwise rank every entry by (priority, key) and take the first string; a
            -- key written twice holds its last value, as in `mur trace`'s map (a map of
            -- DuckDB's is NULL for it: no identity, before)
            ELSE list_sort(list_filter(
                list_transform(
                    list_zip(json_keys(input), json_extract(input, '$.*'),
                        generate_series(1, len(json_keys(input)))),
                    lambda e: {
                        priority: list_position(
                            ['path', 'file', 'file_path', 'filepath', 'filename'],
                            lower(replace(e[1], chr(304), 'i' || chr(775)))
                        ),
                        key: e[1],
                        value: e[2],
                        last: e[3] = len(json_keys(input)) + 1
                            - list_position(list_reverse(json_keys(input)), e[1])
                    }
                ),
                lambda c: c.priority IS NOT NULL AND c.last AND json_type(c.value) = 'VARCHAR'
            ))[1].value ->> '$'
        END AS guessed_path
    FROM (
        SELECT
            *,
            CASE WHEN len(path_keys) > 0 THEN json_transform(input, '{
                "path": "JSON", "file": "JSON", "file_path": "JSON", "filepath": "JSON",
                "filename": "JSON"
            }') END AS fields
        FROM candidates
    )
),
calls AS (
    SELECT e.*, g.guessed_path
    FROM events AS e
    LEFT JOIN guesses AS g ON g.input IS NOT DISTINCT FROM e.input
    WHERE e.event_type = 'tool_call'
)
SELECT
    trace_path,
    line,
    session_id,
    coalesce(turn, 0) AS turn,
    tool_name,
    input,
    status,
    state_effect,
    CASE WHEN resource_id <> '' THEN resource_id ELSE guessed_path END AS resource,
    CASE
        WHEN resource_id <> '' THEN 'declared'
        WHEN guessed_path IS NOT NULL THEN 'path_field'
    END AS resource_source,
    guessed_path AS input_path,
    output_bytes,
    duration_ms,
    timestamp,
    task_id,
    event_id AS call_id,
    cwd,
    result_whole,
    changed_paths,
    first_line,
    last_line,
    file_session
FROM calls
