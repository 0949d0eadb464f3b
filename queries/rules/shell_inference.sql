-- rule shell_inference: what a shell command did to files, read from its text.
--
-- Each `shell` event's command line (its `binary` and `command`; `bash -c '…'` unwrapped, and
-- the `command` of a shell interpreter binary taken as its script) is
-- split into simple commands at `&&`, `||`, `;`, `|` and newlines outside quotes. Then:
-- output redirection (`> f`, `>> f`) changes `f`; `< f` reads it;
-- `cat`/`bat`/`less` read their files whole; `head`, `tail`, `grep`, `rg`, `sed -n`, `awk`
-- read part of them (the request is the command itself); a read whose output goes into
-- another command (`nl -ba f | sed -n '1,80p'`, `cat f | grep x`) read only what that
-- command let through: a part, whose request is the whole pipeline;
-- `sed -i`, `perl -i`, `rm`, `mv`, `cp`/`ln` (the target), `touch`, `mkdir`, `tee`, `chmod`,
-- formatters (`black`, `ruff format`, `prettier`, `gofmt`, `rustfmt`, …) and
-- `git checkout -- f` / `git restore f` / `git rm` / `git mv` change their files;
-- well-known read-only programs (`ls`, `echo`, `jq`, `git status|log|diff|show`, `cargo test`,
-- `mix compile|test`, `pytest`, …) change nothing; anything else (`make`, scripts, `git checkout main`,
-- `cargo fmt`, a formatter with no path) may change anything: `mutate_all`.
-- A guess never creates a finding it could be wrong about: an unknown command invalidates.
-- Relative paths are taken in the directory of the last `cd` of the script before them,
-- else in the event's working directory (`cwd`, in other agents' logs), else as written.
-- The effects are placed at the shell event's line and reported at the tool call that ran it.
-- @column trace_path VARCHAR  Trace file.
-- @column line       BIGINT   Line of the shell event.
-- @column seq        BIGINT   Order of the effect within the event.
-- @column call_line  BIGINT   Line of the tool call that ran the command (NULL when none precedes).
-- @column kind       VARCHAR  `read`, `mutate` or `mutate_all`.
-- @column identity   VARCHAR  The normalised path (NULL for mutate_all).
-- @column whole      BOOLEAN  A read of the whole file.
-- @column request    VARCHAR  What a partial read asked (the simple command); NULL when whole.
-- @column observed   BOOLEAN  The command succeeded (or the failed_calls rule is off).
WITH shell AS (
    SELECT
        e.trace_path,
        e.line,
        e.exit_code,
        e.call_line,
        e.cwd,
        CASE
            WHEN coalesce(e."binary", '') = '' THEN coalesce(e.command, '')
            -- a shell interpreter runs `command` as a script (`bash -c command`, SPEC
            -- section 2); a command written with its options (`-c '…'`) is unwrapped below
            WHEN regexp_extract(e."binary", '[^/]+$') IN ('bash', 'sh', 'zsh', 'fish', 'dash', 'ksh')
                AND NOT regexp_matches(e.command, '^\s*-') THEN e.command
            WHEN regexp_extract(e.command, '^\s*(\S+)', 1)
                IN (e."binary", regexp_extract(e."binary", '[^/]+$')) THEN e.command
            ELSE regexp_extract(e."binary", '[^/]+$') || ' ' || coalesce(e.command, '')
        END AS cmdline
    FROM (
        SELECT
            *,
            max(CASE WHEN event_type = 'tool_call' THEN line END) OVER (
                -- RANGE: a call and the shell event it ran may share a line (other
                -- agents' logs put both at the line of the call)
                PARTITION BY trace_path ORDER BY line RANGE UNBOUNDED PRECEDING
            ) AS call_line
        FROM events
        WHERE event_type IN ('tool_call', 'shell')
    ) AS e
    WHERE e.event_type = 'shell'
        AND (SELECT enabled FROM context_rules WHERE name = 'shell_inference')
),
scripts AS (
    -- `bash -c 'script'`: analyse the script.
    SELECT
        *,
        coalesce(
            nullif(regexp_extract(
                cmdline, '^\s*(?:\S*/)?(?:ba|z|da)?sh\s+-\w*c\w*\s+(''|")(.*)(''|")\s*$', 2
            ), ''),
            cmdline
        ) AS script
    FROM shell
),
pieces AS (
    -- the script cut into quoted strings, escapes, operators and the text between, so that
    -- a `|` or `;` inside quotes (`rg "a|b" f`) separates nothing
    SELECT
        s.trace_path, s.line, s.call_line, s.cwd, s.exit_code, p.piece, p.k,
        p.piece IN ('&&', '||', ';', chr(10)) AS ends_pipeline,
        p.piece IN ('&&', '||', ';', chr(10), '|') AS ends_segment
    FROM scripts AS s,
        unnest(regexp_extract_all(
            s.script,
            '''[^'']*''|"(?:[^"\\]|\\.)*"|\\.|&&|\|\||[;|\n]|[^''"\\;|&\n]+|.',
            0
        )) WITH ORDINALITY AS p(piece, k)
),
numbered AS (
    SELECT
        *,
        sum(ends_pipeline::INTEGER) OVER w AS pipeline_no,
        sum(ends_segment::INTEGER) OVER w AS seq
    FROM pieces
    WINDOW w AS (PARTITION BY trace_path, line ORDER BY k ROWS UNBOUNDED PRECEDING)
),
simple AS (
    SELECT
        trace_path, line, call_line, cwd, exit_code, pipeline_no, seq,
        trim(string_agg(piece, '' ORDER BY k) FILTER (WHERE NOT ends_segment)) AS segment
    FROM numbered
    GROUP BY ALL
),
segments AS (
    -- each simple command, the pipeline it is part of, and whether its output goes into
    -- another command (then what the model saw is what that one let through)
    SELECT
        *,
        string_agg(segment, ' | ') OVER pipeline AS pipeline,
        seq < max(seq) OVER pipeline AS piped
    FROM simple
    WHERE coalesce(segment, '') <> ''
    WINDOW pipeline AS (
        PARTITION BY trace_path, line, pipeline_no ORDER BY seq
        ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING
    )
),
parsed AS (
    SELECT
        *,
        list_filter(
            regexp_extract_all(
                segment,
                '(?:^|[^0-9&<>])[0-9]*>>?\s*(''[^'']*''|"[^"]*"|[^\s&|<>;''"]+)',
                1
            ),
            lambda t: t NOT IN ('/dev/null', '''/dev/null''', '"/dev/null"')
        ) AS written,
        regexp_extract_all(segment, '<\s*(''[^'']*''|"[^"]*"|[^\s&|<>;''"]+)', 1) AS fed,
        list_transform(
            regexp_extract_all(
                regexp_replace(
                    segment,
                    '[0-9]*(?:>>?|<)\s*(?:&[0-9]+|''[^'']*''|"[^"]*"|[^\s&|<>;''"]+)',
                    ' ',
                    'g'
                ),
                '''[^'']*''|"[^"]*"|(?:\\.|[^\s\\])+'
            ),
            lambda t: CASE
                WHEN len(t) >= 2 AND ((starts_with(t, '''') AND ends_with(t, ''''))
                    OR (starts_with(t, '"') AND ends_with(t, '"')))
                    THEN t[2:len(t) - 1]
                -- `a\ b.txt` is one file
                ELSE regexp_replace(t, '\\(.)', '\1', 'g')
            END
        ) AS all_tokens
    FROM segments
),
commands AS (
    -- Skip `VAR=value` assignments and wrappers (`sudo`, `env`, `time`, `xargs`, ...): what
    -- `xargs cat` does is what `cat` does to the files it is given.
    SELECT
        *,
        all_tokens[coalesce(list_position(list_transform(all_tokens, lambda t: NOT (
            regexp_full_match(t, '[A-Za-z_][A-Za-z0-9_]*=.*')
            OR t IN ('sudo', 'env', 'time', 'nohup', 'command', 'exec', 'nice', 'xargs')
        )), true), len(all_tokens) + 1):] AS tokens
    FROM parsed
),
words AS (
    SELECT
        *,
        regexp_extract(tokens[1], '[^/]+$') AS program,
        tokens[2:] AS args,
        list_filter(tokens[2:], lambda t: NOT starts_with(t, '-')) AS operands,
        -- operands once a pattern or script given as the first operand is set aside
        -- (unless it came with -e / -f)
        CASE
            WHEN list_has_any(tokens[2:], ['-e', '-f', '--regexp', '--file', '--expression'])
                THEN list_filter(
                    list_filter(tokens[2:], lambda t, i: i = 1 OR tokens[2:][i - 1] NOT IN
                        ('-e', '-f', '--regexp', '--file', '--expression')),
                    lambda t: NOT starts_with(t, '-')
                )
            ELSE list_filter(tokens[2:], lambda t: NOT starts_with(t, '-'))[2:]
        END AS after_pattern,
        list_filter(tokens[2:], lambda t: NOT starts_with(t, '-')
            AND NOT regexp_full_match(t, '[+-]?[0-9]+')) AS files,
        list_has_any(tokens[2:], ['-i', '--in-place'])
            OR len(list_filter(tokens[2:], lambda t: regexp_full_match(t, '-[a-hj-zA-Z]*i.*')))
                > 0 AS in_place,
        list_filter(tokens[2:], lambda t: NOT starts_with(t, '-'))[1] AS subcommand
    FROM commands
    WHERE len(tokens) > 0
),
classified AS (
    SELECT
        *,
        CASE
            WHEN program IN ('cat', 'bat', 'batcat', 'less', 'more', 'nl', 'tac') THEN 'read_whole'
            WHEN program IN ('head', 'tail') THEN 'read_part'
            WHEN program IN ('grep', 'egrep', 'fgrep', 'rg', 'ag', 'awk', 'gawk')
                THEN 'read_after_pattern'
            WHEN program = 'sed' AND in_place THEN 'mutate_after_pattern'
            WHEN program = 'sed' THEN 'read_after_pattern'
            WHEN program IN ('perl', 'ruby') AND in_place THEN 'mutate_after_pattern'
            WHEN program IN ('rm', 'rmdir', 'unlink', 'touch', 'mkdir', 'truncate', 'shred',
                             'tee', 'mv', 'dos2unix', 'unix2dos') THEN 'mutate_files'
            WHEN program IN ('cp', 'ln', 'install', 'rsync') THEN 'mutate_last'
            WHEN program IN ('chmod', 'chown', 'chgrp') THEN 'mutate_after_pattern'
            WHEN program IN ('black', 'isort', 'gofmt', 'rustfmt', 'prettier', 'clang-format',
                             'autopep8', 'yapf', 'shfmt') THEN 'format'
            WHEN program = 'ruff' AND (subcommand = 'format' OR list_contains(args, '--fix'))
                THEN 'format_sub'
            WHEN program = 'ruff' THEN 'none'
            WHEN program = 'cargo' AND subcommand IN ('test', 'build', 'check', 'run', 'bench',
                'doc', 'tree', 'metadata', 'search') THEN 'none'
            WHEN program = 'cargo' AND subcommand = 'clippy' AND NOT list_contains(args, '--fix')
                THEN 'none'
            WHEN program = 'go' AND subcommand IN ('test', 'vet', 'build', 'list', 'version', 'env')
                THEN 'none'
            WHEN program IN ('npm', 'yarn', 'pnpm') AND subcommand = 'test' THEN 'none'
            WHEN program = 'mix' AND subcommand IN ('compile', 'test', 'credo', 'dialyzer',
                'xref', 'help', 'deps.tree') THEN 'none'
            WHEN program = 'mix' AND subcommand = 'format' THEN 'format_sub'
            WHEN program = 'git' AND subcommand IN ('status', 'log', 'diff', 'show', 'blame',
                'branch', 'ls-files', 'rev-parse', 'describe', 'remote', 'fetch', 'shortlog',
                'reflog', 'grep', 'add', 'commit', 'config', 'tag') THEN 'none'
            WHEN program = 'git' AND subcommand IN ('checkout', 'restore')
                AND list_contains(args, '--') THEN 'git_after_dashes'
            WHEN program = 'git' AND subcommand IN ('restore', 'rm', 'mv') THEN 'mutate_after_pattern'
            WHEN program = 'find' AND NOT list_has_any(args, ['-delete', '-exec', '-execdir', '-ok'])
                THEN 'none'
            WHEN program IN ('ls', 'pwd', 'echo', 'printf', 'which', 'whoami', 'date', 'true',
                'false', 'test', '[', 'sleep', 'uname', 'id', 'hostname', 'ps', 'df', 'du',
                'free', 'wc', 'sort', 'uniq', 'diff', 'cmp', 'tree', 'stat', 'file', 'md5sum',
                'sha1sum', 'sha256sum', 'basename', 'dirname', 'realpath', 'readlink', 'cut',
                'tr', 'jq', 'strings', 'xxd', 'od', 'hexdump', 'pytest', 'mypy', 'tsc', 'jest', 'cd', 'export', 'type', 'whereis',
                'history', 'jobs', 'clear') THEN 'none'
            WHEN program = 'env' THEN 'none'
            ELSE 'mutate_all'
        END AS class,
        -- the directory relative paths are in: the last `cd` before this command in the
        -- same script, else the event's working directory (when the log records one)
        last_value(CASE WHEN program IN ('cd', 'pushd') THEN coalesce(operands[1], '~') END
            IGNORE NULLS) OVER (
            PARTITION BY trace_path, line ORDER BY seq
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS moved_to
    FROM words
),
located AS (
    SELECT
        * REPLACE (
            -- a `cd` whose target cannot be known here (`~`, `-`, a variable) puts the
            -- paths after it anywhere: anything may have changed
            CASE WHEN program IN ('cd', 'pushd')
                AND regexp_matches(coalesce(operands[1], '~'), '^[~-]|[$`*]')
                THEN 'mutate_all' ELSE class END AS class
        ),
        CASE
            WHEN moved_to IS NULL THEN cwd
            WHEN starts_with(moved_to, '/') THEN moved_to
            WHEN cwd IS NOT NULL THEN cwd || '/' || moved_to
            ELSE moved_to
        END AS base
    FROM classified
),
effects AS (
    SELECT
        c.trace_path,
        c.line,
        c.call_line,
        c.exit_code,
        c.seq,
        c.base,
        list_concat(
            list_transform(c.fed, lambda p: {kind: 'read', path: p, whole: true}),
            CASE c.class
                WHEN 'read_whole' THEN
                    list_transform(c.operands, lambda p: {kind: 'read', path: p, whole: NOT c.piped})
                WHEN 'read_part' THEN
                    list_transform(c.files, lambda p: {kind: 'read', path: p, whole: false})
                WHEN 'read_after_pattern' THEN
                    list_transform(c.after_pattern, lambda p: {kind: 'read', path: p, whole: false})
                WHEN 'mutate_after_pattern' THEN
                    list_transform(c.after_pattern, lambda p: {kind: 'mutate', path: p, whole: NULL})
                WHEN 'mutate_files' THEN
                    list_transform(c.operands, lambda p: {kind: 'mutate', path: p, whole: NULL})
                WHEN 'mutate_last' THEN
                    list_transform(c.operands[-1:], lambda p: {kind: 'mutate', path: p, whole: NULL})
                WHEN 'format' THEN
                    CASE WHEN len(c.operands) > 0
                        THEN list_transform(c.operands,
                            lambda p: {kind: 'mutate', path: p, whole: NULL})
                        ELSE [{kind: 'mutate_all', path: NULL, whole: NULL}]
                    END
                WHEN 'format_sub' THEN
                    CASE WHEN len(c.operands) > 1
                        THEN list_transform(c.operands[2:],
                            lambda p: {kind: 'mutate', path: p, whole: NULL})
                        ELSE [{kind: 'mutate_all', path: NULL, whole: NULL}]
                    END
                WHEN 'git_after_dashes' THEN
                    list_transform(
                        c.args[list_position(c.args, '--') + 1:],
                        lambda p: {kind: 'mutate', path: p, whole: NULL}
                    )
                WHEN 'mutate_all' THEN [{kind: 'mutate_all', path: NULL, whole: NULL}]
                ELSE []
            END,
            list_transform(c.written, lambda p: {kind: 'mutate', path: p, whole: NULL})
        ) AS found,
        CASE WHEN c.piped THEN c.pipeline ELSE c.segment END AS request
    FROM located AS c
)
SELECT
    e.trace_path,
    e.line,
    row_number() OVER (PARTITION BY e.trace_path, e.line ORDER BY e.seq, f.n) AS seq,
    e.call_line,
    f.effect.kind AS kind,
    CASE WHEN f.effect.kind <> 'mutate_all' THEN normalise_path(
        CASE WHEN e.base IS NOT NULL AND NOT starts_with(u.path, '/') THEN e.base || '/' || u.path
            ELSE u.path
        END
    ) END AS identity,
    coalesce(f.effect.whole, false) AS whole,
    CASE WHEN f.effect.kind = 'read' AND NOT f.effect.whole THEN e.request END AS request,
    coalesce(e.exit_code, 0) = 0
        OR NOT (SELECT enabled FROM context_rules WHERE name = 'failed_calls') AS observed
FROM effects AS e, unnest(e.found) WITH ORDINALITY AS f(effect, n),
    LATERAL (SELECT CASE
        WHEN len(f.effect.path) >= 2 AND (starts_with(f.effect.path, '''')
            OR starts_with(f.effect.path, '"')) THEN f.effect.path[2:len(f.effect.path) - 1]
        ELSE f.effect.path
    END AS path) AS u
