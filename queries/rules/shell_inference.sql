-- rule shell_inference: what a shell command read and changed, read from its text.
--
-- What ran is read the way the Murmur runtime runs shell tools (murmur-nexus/murmur,
-- crates/capsule-runtime/src/shell.rs: SHELL_INTERPRETERS, split_shell_words; runtime.rs:
-- dispatch_shell_tool; the `shell` event of trace.rs, written after the tool call). Every
-- allowed binary is its own tool, named after it, with input `{"command": ...}`:
-- - a shell interpreter (`bash`, `sh`, `zsh`, `fish`, `dash`, `ksh`) runs `command` as a
--   script (`bash -c command`): the `shell` event says `binary: "/usr/bin/bash"` and the
--   script. So does a `shell` event that names no binary (older traces);
-- - any other binary gets `command` as its argument list, without its own name, split by
--   `split_shell_words` (queries/functions/split_shell_words.sql): `binary:
--   "/usr/bin/git", command: "checkout -- src/a.rs"` ran `git checkout -- src/a.rs`; no
--   pipes, no redirection (`|`, `>` are arguments). `binary` is the resolved absolute path,
--   or the bare name when nothing resolved.
-- - a tool call that looks like a shell tool's (its input's `command` is a string, it
--   declares no effect) with no `shell` event after it (a killed session) is read from its
--   input: it ran, but what it read is not known to have been seen.
--
-- A script is split into simple commands at `&&`, `||`, `;`, `|`, `&` and newlines outside
-- quotes (here-document bodies set aside); `cd DIR` moves what later commands of the
-- script name; words are split as the runtime splits them. Then:
-- - output redirection (`> f`, `>> f`) changes `f`; `< f` reads it whole;
-- - reads: `cat`/`bat`/`less`/`nl` read their files whole; `head`, `tail`, `grep`, `rg`,
--   `sed -n`, `awk`, `wc`, `sort`, `diff`, checksums read part of them; `ls`/`tree`/`find`
--   list a directory; `git status|diff|ls-files|grep|blame` read the working tree (`.`),
--   `git log|show|branch|tag|reflog|rev-parse` the repository's history (`.git`). A
--   partial read's request is the simple command itself, so only the same command again
--   (or an earlier whole read of the file) covers it;
-- - changes: `sed -i`, `perl -i`, `rm`, `mv`, `cp`/`ln` (the target), `touch`, `mkdir`,
--   `tee`, `chmod`, formatters (`black`, `ruff format`, `prettier`, `gofmt`, `rustfmt`, ...)
--   and `git checkout -- f` / `git restore f` / `git rm` / `git mv` change their files;
--   `git add|commit|fetch|tag X|branch X|config` change the repository (`.git`), not the
--   files; a path with a glob changes the directory it lies in;
-- - builds and tests change no source: `cargo build|check|test|clippy`, `go build|test|vet`,
--   `pytest`, `python -m pytest|unittest|mypy|compileall`, `npm|yarn|pnpm test`; nor do
--   `echo`, `pwd`, `which`, `stat`, `du`, `true`, ...;
-- - anything else (`make`, scripts, `git stash`, `git checkout BRANCH`, `git reset`,
--   `git pull`, `cargo fmt`, a formatter with no path, a path built from `$VAR`) may have
--   changed any local file: `mutate_all`. It never changes what a URL returned.
-- A guess never creates a finding it could be wrong about: what is not understood
-- invalidates. The effects are placed at the shell event's line, in command order, and
-- belong to the tool call that ran it; a shell call counts as redundant only when every
-- read of it is, and it changed nothing (queries/redundant/context.sql).
-- @column trace_path VARCHAR  Trace file.
-- @column line       BIGINT   Line of the shell event (of the tool call, when it has none).
-- @column seq        BIGINT   Order of the effect within the event.
-- @column call_line  BIGINT   Line of the tool call that ran the command (NULL when none precedes).
-- @column kind       VARCHAR  `read`, `mutate` or `mutate_all`.
-- @column identity   VARCHAR  The normalised path (NULL for mutate_all).
-- @column whole      BOOLEAN  A read of the whole file.
-- @column request    VARCHAR  What a partial read asked (the simple command); NULL when whole.
-- @column observed   BOOLEAN  The command is known to have run and succeeded (or the failed_calls rule is off).
WITH ordered AS (
    SELECT
        trace_path,
        line,
        event_type,
        tool_name,
        input,
        state_effect,
        status,
        "binary",
        command,
        exit_code,
        max(CASE WHEN event_type = 'tool_call' THEN line END) OVER (
            PARTITION BY trace_path ORDER BY line ROWS UNBOUNDED PRECEDING
        ) AS call_line,
        lead(event_type) OVER (PARTITION BY trace_path ORDER BY line) AS next_type
    FROM events
    WHERE event_type IN ('tool_call', 'shell')
        AND (SELECT enabled FROM context_rules WHERE name = 'shell_inference')
),
shell AS (
    SELECT
        trace_path,
        line,
        call_line,
        exit_code,
        true AS known,
        regexp_extract(coalesce("binary", ''), '[^/]+$') AS program,
        trim(coalesce(command, '')) AS command
    FROM ordered
    WHERE event_type = 'shell'
    UNION ALL
    -- a shell tool's call whose `shell` event never came (the session was killed)
    SELECT
        trace_path,
        line,
        line,
        NULL,
        false,
        tool_name,
        trim(input ->> '$.command')
    FROM ordered
    WHERE event_type = 'tool_call'
        AND next_type IS DISTINCT FROM 'shell'
        AND json_type(input, '$.command') = 'VARCHAR'
        AND state_effect IS NULL
        AND status IS DISTINCT FROM 'error'
),
-- a script (run by an interpreter, or by nothing named) is split into simple commands;
-- another binary ran once, with its argument list
segments AS (
    SELECT
        s.trace_path, s.line, s.call_line, s.exit_code, s.known, g.seq,
        trim(g.segment) AS segment,
        true AS in_script
    FROM shell AS s,
        unnest(regexp_extract_all(
            -- here-document bodies are data, not commands
            regexp_replace(
                s.command,
                '(<<-?\s*[''"]?(EOF|EOT|END|EOL|PY|PYEOF|SH|SCRIPT|CODE|DATA|TEXT|HEREDOC|MD|JSON|YAML|CONTENT|PATCH|DIFF)[''"]?[^\n]*)\n(?s:.*?)\n[ \t]*(EOF|EOT|END|EOL|PY|PYEOF|SH|SCRIPT|CODE|DATA|TEXT|HEREDOC|MD|JSON|YAML|CONTENT|PATCH|DIFF)([ \t]*\n|[ \t]*$)',
                '\1' || chr(10),
                'g'
            ),
            '(?:''[^'']*''?|"(?:[^"\\]|\\(?s:.))*"?|\\(?s:.)|&[0-9>-]|[^''"\\;|\n&])+'
        )) WITH ORDINALITY AS g(segment, seq)
    WHERE s.program = '' OR s.program IN ('bash', 'sh', 'zsh', 'fish', 'dash', 'ksh')
    UNION ALL
    SELECT
        trace_path, line, call_line, exit_code, known, 1,
        program || ' ' || command,
        false
    FROM shell
    WHERE program <> '' AND program NOT IN ('bash', 'sh', 'zsh', 'fish', 'dash', 'ksh')
),
parsed AS (
    SELECT
        *,
        CASE WHEN in_script THEN list_filter(
            regexp_extract_all(
                segment,
                '(?:^|[^0-9&<>])[0-9]*>>?\s*(''[^'']*''|"[^"]*"|[^\s&|<>;''"]+)',
                1
            ),
            lambda t: t NOT IN ('/dev/null', '''/dev/null''', '"/dev/null"')
        ) ELSE [] END AS quoted_written,
        CASE WHEN in_script
            THEN regexp_extract_all(segment, '(?:^|[^<])<\s*(''[^'']*''|"[^"]*"|[^\s&|<>;''"]+)', 1)
            ELSE []
        END AS quoted_fed,
        split_shell_words(CASE WHEN in_script THEN regexp_replace(
            segment,
            '[0-9]*(?:>>?|<<?)\s*(?:&[0-9]+|''[^'']*''|"[^"]*"|[^\s&|<>;''"]+)',
            ' ',
            'g'
        ) ELSE segment END) AS all_tokens
    FROM segments
    WHERE segment <> ''
),
unquoted AS (
    SELECT
        *,
        list_transform(quoted_written, lambda t: split_shell_words(t)[1]) AS written,
        list_transform(quoted_fed, lambda t: split_shell_words(t)[1]) AS fed
    FROM parsed
),
commands AS (
    -- Skip `VAR=value` assignments and wrappers (`sudo`, `env`, `time`, `timeout 60`, ...).
    SELECT
        *,
        all_tokens[coalesce(list_position(list_transform(all_tokens, lambda t, i: NOT (
            regexp_full_match(t, '[A-Za-z_][A-Za-z0-9_]*=.*')
            OR t IN ('sudo', 'env', 'time', 'nohup', 'command', 'exec', 'nice', 'timeout')
            OR (i > 1 AND all_tokens[i - 1] = 'timeout' AND regexp_full_match(t, '[0-9.]+[smhd]?'))
        )), true), len(all_tokens) + 1):] AS tokens
    FROM unquoted
),
-- `cd DIR` in a script moves the relative paths of the commands after it; after a `cd`
-- that cannot be followed (`cd`, `cd -`, `cd ~`, `cd $X`), paths are unknown
moves AS (
    SELECT
        *,
        list(CASE WHEN tokens[1] IN ('cd', 'pushd') THEN coalesce(tokens[2], '~') END) OVER (
            PARTITION BY trace_path, line ORDER BY seq
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS dirs
    FROM commands
    WHERE len(tokens) > 0
),
located AS (
    SELECT
        *,
        list_reduce(
            ['.'] || list_filter(coalesce(dirs, []), lambda d: d IS NOT NULL),
            lambda cwd, d: CASE
                WHEN cwd IS NULL OR regexp_matches(d, '^[~-]$|^~/|[$`*?]') THEN NULL
                WHEN starts_with(d, '/') THEN d
                ELSE cwd || '/' || d
            END
        ) AS cwd
    FROM moves
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
        list_filter(tokens[2:], lambda t: NOT starts_with(t, '-'))[1] AS subcommand,
        -- `find`'s starting points: the words before its expression
        list_filter(
            tokens[2:list_position(list_transform(tokens[2:] || ['-'], lambda t:
                starts_with(t, '-') OR t IN ('(', '!', '\(')), true)],
            lambda t: NOT starts_with(t, '-') AND t NOT IN ('(', '!', '\(')
        ) AS roots
    FROM located
),
classified AS (
    SELECT
        *,
        CASE
            WHEN program IN ('cd', 'pushd', 'popd') THEN 'none'
            WHEN program IN ('cat', 'bat', 'batcat', 'less', 'more', 'nl', 'tac') THEN 'read_whole'
            WHEN program IN ('head', 'tail', 'wc', 'sort', 'uniq', 'cut', 'diff', 'cmp', 'comm',
                'md5sum', 'sha1sum', 'sha256sum', 'sha512sum', 'cksum', 'od', 'xxd', 'hexdump',
                'strings', 'column', 'fold', 'jq') THEN 'read_part'
            WHEN program IN ('grep', 'egrep', 'fgrep', 'rg', 'ag', 'awk', 'gawk')
                THEN 'read_after_pattern'
            WHEN program = 'sed' AND in_place THEN 'mutate_after_pattern'
            WHEN program = 'sed' THEN 'read_after_pattern'
            WHEN program IN ('ls', 'tree', 'exa', 'eza') THEN 'list'
            WHEN program IN ('find', 'fd') AND NOT list_has_any(args,
                ['-delete', '-exec', '-execdir', '-ok', '-okdir', '-fprint', '-fprintf', '-fls',
                 '-x', '--exec', '-X', '--exec-batch']) THEN 'list_roots'
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
            WHEN regexp_full_match(program, 'python[0-9.]*') AND len(args) >= 2 AND args[1] = '-m'
                AND args[2] IN ('pytest', 'unittest', 'mypy', 'compileall', 'py_compile',
                    'pyflakes', 'pylint', 'flake8', 'doctest', 'json.tool', 'tabnanny')
                THEN 'none'
            WHEN program IN ('source', '.') AND ends_with(coalesce(args[1], ''), 'activate')
                THEN 'none'
            WHEN program = 'git' AND subcommand IN ('status', 'diff', 'ls-files', 'grep', 'blame',
                'difftool') THEN 'git_tree'
            WHEN program = 'git' AND subcommand IN ('log', 'show', 'shortlog', 'reflog',
                'rev-parse', 'rev-list', 'describe', 'cat-file', 'ls-tree', 'whatchanged')
                THEN 'git_history'
            WHEN program = 'git' AND subcommand IN ('branch', 'tag', 'remote')
                AND len(list_filter(args, lambda t: NOT starts_with(t, '-'))) = 1
                AND list_filter(args, lambda t: starts_with(t, '-')) <@ ['-a', '-r', '-v', '-vv',
                    '-l', '--list', '--all', '--verbose', '--show-current', '--no-color']
                THEN 'git_history'
            WHEN program = 'git' AND subcommand = 'stash'
                AND list_filter(args, lambda t: NOT starts_with(t, '-'))[2] IN ('list', 'show')
                THEN 'git_history'
            WHEN program = 'git' AND subcommand IN ('add', 'commit', 'fetch', 'tag', 'branch',
                'config', 'remote', 'notes', 'gc', 'update-index') THEN 'git_repository'
            WHEN program = 'git' AND subcommand IN ('checkout', 'restore')
                AND list_contains(args, '--') THEN 'git_after_dashes'
            WHEN program = 'git' AND subcommand = 'restore' THEN 'mutate_after_pattern'
            WHEN program = 'git' AND subcommand IN ('rm', 'mv') THEN 'git_files'
            WHEN program IN ('pwd', 'echo', 'printf', 'which', 'whoami', 'date', 'true',
                'false', 'test', '[', 'sleep', 'uname', 'id', 'hostname', 'ps', 'df', 'du',
                'free', 'stat', 'file', 'basename', 'dirname', 'realpath', 'readlink', 'tr',
                'pytest', 'mypy', 'tsc', 'jest', 'export', 'type', 'whereis', 'history', 'jobs',
                'clear', 'set', 'unset', 'exit', 'return', ':', 'wait', 'read', 'nproc', 'env',
                'printenv', 'locale', 'tty', 'seq', 'yes', 'expr', 'let', 'declare', 'alias',
                'shopt', 'trap', 'umask', 'ulimit', 'hash', 'command') THEN 'none'
            ELSE 'mutate_all'
        END AS class
    FROM words
),
effects AS (
    SELECT
        c.trace_path,
        c.line,
        c.call_line,
        c.exit_code,
        c.known,
        c.seq,
        c.cwd,
        list_concat(
            list_transform(c.fed, lambda p: {kind: 'read', path: p, whole: true}),
            CASE c.class
                WHEN 'read_whole' THEN
                    list_transform(c.operands, lambda p: {kind: 'read', path: p, whole: true})
                WHEN 'read_part' THEN
                    list_transform(c.files, lambda p: {kind: 'read', path: p, whole: false})
                WHEN 'read_after_pattern' THEN
                    list_transform(c.after_pattern, lambda p: {kind: 'read', path: p, whole: false})
                WHEN 'list' THEN
                    list_transform(
                        CASE WHEN len(c.operands) > 0 THEN c.operands ELSE ['.'] END,
                        lambda p: {kind: 'read', path: p, whole: false}
                    )
                WHEN 'list_roots' THEN
                    list_transform(
                        CASE WHEN len(c.roots) > 0 THEN c.roots ELSE ['.'] END,
                        lambda p: {kind: 'read', path: p, whole: false}
                    )
                WHEN 'git_tree' THEN [{kind: 'read', path: '.', whole: false}]
                WHEN 'git_history' THEN [{kind: 'read', path: '.git', whole: false}]
                WHEN 'git_repository' THEN [{kind: 'mutate', path: '.git', whole: NULL}]
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
                WHEN 'git_files' THEN
                    list_transform(
                        c.operands[2:],
                        lambda p: {kind: 'mutate', path: p, whole: NULL}
                    ) || [{kind: 'mutate', path: '.git', whole: NULL}]
                WHEN 'mutate_all' THEN [{kind: 'mutate_all', path: NULL, whole: NULL}]
                ELSE []
            END,
            list_transform(c.written, lambda p: {kind: 'mutate', path: p, whole: NULL})
        ) AS found,
        trim(c.segment) AS request
    FROM classified AS c
),
-- each effect's path as the trace names it: relative to the script's `cd`s; a path that
-- names no one file (a glob, a variable, `~`) is its directory when changed, unknown when
-- read
resolved AS (
    SELECT
        e.*,
        f.n,
        f.effect.kind AS effect_kind,
        f.effect.whole AS effect_whole,
        CASE
            WHEN f.effect.kind = 'mutate_all' THEN NULL
            WHEN e.cwd IS NULL AND NOT starts_with(f.effect.path, '/') THEN NULL
            WHEN starts_with(f.effect.path, '/') OR e.cwd = '.' THEN f.effect.path
            ELSE e.cwd || '/' || f.effect.path
        END AS path
    FROM effects AS e, unnest(e.found) WITH ORDINALITY AS f(effect, n)
),
placed AS (
    SELECT
        *,
        path IS NOT NULL AND regexp_matches(path, '[*?\[{$`]|^~') AS vague
    FROM resolved
)
SELECT
    trace_path,
    line,
    row_number() OVER (PARTITION BY trace_path, line ORDER BY seq, n) AS seq,
    call_line,
    CASE
        WHEN effect_kind = 'mutate' AND (path IS NULL OR regexp_matches(path, '^[~$`]'))
            THEN 'mutate_all'
        ELSE effect_kind
    END AS kind,
    CASE
        WHEN effect_kind = 'mutate_all' OR path IS NULL OR regexp_matches(path, '^[~$`]')
            OR (vague AND effect_kind = 'read') THEN NULL
        WHEN vague THEN normalise_path(regexp_replace(path, '/?[^/]*[*?\[{$`].*$', ''))
        ELSE normalise_path(path)
    END AS identity,
    coalesce(effect_whole, false) AS whole,
    CASE WHEN effect_kind = 'read' AND NOT effect_whole THEN request END AS request,
    known AND (coalesce(exit_code, 0) = 0
        OR NOT (SELECT enabled FROM context_rules WHERE name = 'failed_calls'))
        AND NOT (effect_kind = 'read' AND (path IS NULL OR vague)) AS observed
FROM placed
