-- rule same_request: a read repeats an earlier one only if it asked for what that one saw.
--
-- The request of a call is its tool and its input without the keys that name the path.
-- A read is whole when it asked for nothing but its resource (its input holds nothing but
-- the path, an operation name (`operation`, `op`, `action`, an editor's `command`), and a byte cap (`max_bytes`,
-- ...) the output stayed below: a capped read that returned less than its cap returned
-- everything) and its operation, or its tool when it names none, says it reads content
-- (`read_file`, `fs_cat`, `view`, `get_contents`, `Read`, ...), not metadata (`fs_stat`,
-- `get_info`, `exists`, `list_dir`, `search`: a path alone does not make a whole read).
-- An earlier read covers a later one of the same resource when both asked the same
-- (equal requests), when both are whole (two tools that returned a whole file returned
-- the same thing), or when the earlier one read a file whole: a file read whole holds any
-- part of it. A path counts as a file when its name has an extension and no other path of
-- the trace lies beneath it; a directory's whole read is a listing, which does not hold a
-- search, and an unknown path is treated as a directory. So `find_references` after
-- `find_definition` of one symbol, a search in a directory after listing it, a read of a
-- file after a `grep` in it, or after its `stat`, are not redundant; a `grep` after
-- reading the file is, and so is `read_file` after `fs_cat` of the same file. Where the
-- log says what a read returned (other agents' logs: the whole file, or lines 40 to 80),
-- that wins, and a read of lines within the lines an earlier read returned is held. A read of
-- metadata (`fs_stat`) is held only by the same request: the content does not hold it.
-- @column trace_path VARCHAR  Trace file.
-- @column line       BIGINT   Line of the call.
-- @column request    VARCHAR  The tool and its input without its path keys (NULL when the rule is off).
-- @column whole      BOOLEAN  The call read the whole resource (always true when the rule is off).
-- @column asks_nothing_else BOOLEAN  Its input holds nothing but its resource, an operation name and a byte cap it stayed below.
-- @column metadata   BOOLEAN  Its name says it reads metadata (`stat`, `info`, `exists`, ...): no read of the content holds it (always false when the rule is off).
-- @column first_line BIGINT   First line of the file the read returned, when known (NULL when the rule is off).
-- @column last_line  BIGINT   Last line it returned; NULL with first_line: to the end.
-- What a request is depends on its tool and input alone: it is worked out once for each
-- distinct pair, then joined to the calls (reads of one file repeat their input: in the
-- recorded sessions 420 of 1,599 are distinct).
WITH calls AS (
    SELECT trace_path, line, tool_name, input, output_bytes, result_whole, first_line, last_line
    FROM tool_calls
    WHERE resource IS NOT NULL
),
requests AS (
    SELECT
        tool_name,
        input,
        CASE WHEN json_type(input) = 'OBJECT' THEN
            map_from_entries(list_filter(
                map_entries(json_transform(input, '"MAP(VARCHAR, JSON)"')),
                -- the path keys, lower-cased as the identity folds them (path_key_rank)
                lambda e: path_key_rank(e.key) IS NULL
            ))
        END AS rest
    FROM (SELECT DISTINCT tool_name, input FROM calls)
),
asked AS (
    SELECT
        *,
        -- what the call asked beyond its resource: an operation name asks nothing, nor
        -- does a byte cap the output stayed below (`caps`, compared for each call below)
        list_filter(map_keys(rest), lambda k: NOT (
            lower(k) IN ('operation', 'op', 'action', 'command')
            OR regexp_full_match(lower(k), 'max_?(bytes|size|length|chars)|(byte|size)_?limit')
        )) AS extra,
        list_transform(
            list_filter(map_keys(rest), lambda k:
                lower(k) NOT IN ('operation', 'op', 'action', 'command')
                AND regexp_full_match(lower(k), 'max_?(bytes|size|length|chars)|(byte|size)_?limit')
            ),
            lambda k: TRY_CAST(rest[k]::VARCHAR AS BIGINT)
        ) AS caps,
        -- the words of its operation (or tool) name: `readFile`, `fs_cat` -> read file, fs cat
        string_split(regexp_replace(lower(regexp_replace(
            coalesce(
                list_filter(
                    list_transform(
                        list_filter(map_entries(rest),
                            lambda e: lower(e.key) IN ('operation', 'op', 'action', 'command')),
                        lambda e: json_extract_string(e.value, '$')
                    ),
                    lambda v: v IS NOT NULL
                )[1],
                tool_name,
                ''
            ),
            '([a-z0-9])([A-Z])', '\1_\2', 'g'
        )), '[^a-z0-9]+', ' ', 'g'), ' ') AS words
    FROM requests
),
-- what depends on the request alone, once for each distinct one
described AS (
    SELECT
        tool_name,
        input,
        extra,
        caps,
        coalesce(tool_name, '') || ' ' || coalesce(to_json(rest)::VARCHAR, '{}') AS request_text,
        list_has_any(words, ['read', 'cat', 'view', 'open', 'get', 'show', 'load',
                'fetch', 'dump', 'display', 'print', 'content', 'contents'])
            AND NOT list_has_any(words, ['stat', 'stats', 'info', 'metadata', 'meta', 'exists',
                'exist', 'size', 'mtime', 'perms', 'permissions', 'owner', 'hash', 'checksum',
                'count', 'list', 'ls', 'dir', 'tree', 'search', 'find', 'grep', 'glob', 'head',
                'tail', 'range', 'lines', 'symbols', 'outline', 'diff']) AS reads_content,
        list_has_any(words, ['stat', 'stats', 'info', 'metadata', 'meta', 'exists', 'exist',
            'size', 'mtime', 'perms', 'permissions', 'owner']) AS reads_metadata
    FROM asked
),
judged AS (
    SELECT
        c.trace_path,
        c.line,
        c.result_whole,
        c.first_line,
        c.last_line,
        a.request_text,
        a.reads_content,
        a.reads_metadata,
        -- a byte cap the output reached asks for more (one that is no number asks nothing)
        coalesce(len(a.extra), 0)
            + coalesce(len(list_filter(a.caps, lambda cap: cap <= coalesce(c.output_bytes, 0))), 0)
            AS extra_count
    FROM calls AS c
    JOIN described AS a
        ON a.tool_name IS NOT DISTINCT FROM c.tool_name AND a.input IS NOT DISTINCT FROM c.input
)
SELECT
    trace_path,
    line,
    CASE WHEN (SELECT enabled FROM context_rules WHERE name = 'same_request') THEN request_text END
        AS request,
    NOT (SELECT enabled FROM context_rules WHERE name = 'same_request')
        -- what the log says the call returned (the whole file, or not) wins
        OR coalesce(result_whole, extra_count = 0 AND reads_content) AS whole,
    extra_count = 0 AS asks_nothing_else,
    coalesce((SELECT enabled FROM context_rules WHERE name = 'same_request'), false)
        AND reads_metadata AS metadata,
    CASE WHEN (SELECT enabled FROM context_rules WHERE name = 'same_request') THEN first_line END
        AS first_line,
    last_line
FROM judged
