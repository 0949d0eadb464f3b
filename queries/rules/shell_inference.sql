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
-- script name (relative paths start from where the log says the command ran, `cwd` in other
-- agents' logs); words are split as the runtime splits them. Then:
-- - output redirection (`> f`, `>> f`) changes `f`; `< f` reads it whole;
-- - reads: `cat`/`bat`/`less`/`nl` read their files whole; `head`, `tail`, `grep`, `rg`,
--   `sed -n`, `awk`, `wc`, `sort`, `diff`, checksums read part of them; `ls`/`tree`/`find`
--   list a directory; `git status|diff|ls-files|grep|blame` read the working tree (`.`),
--   `git log|show|branch|tag|reflog|rev-parse` the repository's history (`.git`). A
--   partial read's request is the simple command itself, so only the same command again
--   (or an earlier whole read of the file) covers it;
-- - changes: `sed -i`, `perl -i`, `rm`, `mv`, `cp`/`ln` (the target), `touch`, `mkdir`,
--   `tee`, `chmod`, and `git checkout -- f` / `git restore f` / `git rm` / `git mv` change
--   their files; formatters (`black`, `ruff format`, `prettier`, `gofmt`, `cargo fmt`, ...)
--   change what they are given (a directory, or `.`); `git stash [pop|apply]` and
--   `git reset --hard` what is not committed (`mutate_changed`: rules/session_changes.sql
--   says which files);
--   `git add|commit|fetch|tag X|branch X|config` change the repository (`.git`), not the
--   files; a path with a glob changes the directory it lies in;
-- - builds, tests and linters change no source, but their caches and outputs appear in
--   directory listings and searches (`mutate_listings`): `cargo build|check|test|clippy`,
--   `go build|test|vet`, `pytest`, `python -m pytest|unittest|mypy|compileall`,
--   `npm|yarn|pnpm test`, `ruff check`, `make` with no target or `build`/`test`/`check`/
--   `lint`/`all`; `echo`, `pwd`, `which`, `stat`, `du`, `true`, ...
--   change nothing;
-- - what a command prints into another command (`cat f | head`) is seen only as the
--   pipeline's end: a partial read, whose request is the pipeline; what goes to a file
--   (`cat f > g`) is not seen at all; a file `< f` feeds is read in part; a whole read
--   whose output the runtime cut (16 KiB) is a partial one, and the runtime keeps the whole
--   output in a new file under `logs/` (a change of that directory);
-- - a git command that failed, run alone, changed nothing (`git commit` with nothing to
--   commit);
-- - anything else (`make`, scripts, `git checkout BRANCH`, `git reset HEAD~1`, `git pull`,
--   a path built from `$VAR`) may have changed any local file: `mutate_all`.
--   It never changes what a URL returned.
-- A guess never creates a finding it could be wrong about: what is not understood
-- invalidates. The effects are placed at the shell event's line, in command order, and
-- belong to the tool call that ran it; a shell call counts as redundant only when every
-- read of it is (what else it did, a change, returned nothing to read: the call's output
-- is its reads'; queries/redundant/context.sql).
-- @column trace_path VARCHAR  Trace file.
-- @column line       BIGINT   Line of the shell event (of the tool call, when it has none).
-- @column seq        BIGINT   Order of the effect within the event.
-- @column call_line  BIGINT   Line of the tool call that ran the command (NULL when none precedes).
-- @column kind       VARCHAR  `read`, `mutate`, `mutate_all`, `mutate_listings` (directories' contents may have changed) or `mutate_changed` (what the session changed under `identity`, or anywhere when NULL, may have changed).
-- @column identity   VARCHAR  The normalised path (NULL for mutate_all).
-- @column whole      BOOLEAN  A read of the whole file.
-- @column request    VARCHAR  What a partial read asked (the simple command, or its pipeline; the MD5 digest of one over 256 characters); NULL when whole.
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
        stdout_bytes,
        stderr_bytes,
        cwd,
        -- RANGE: a call and the shell event it ran may share a line (other agents' logs put
        -- both at the line of the call)
        max(CASE WHEN event_type = 'tool_call' THEN line END) OVER (
            PARTITION BY trace_path ORDER BY line RANGE UNBOUNDED PRECEDING
        ) AS call_line,
        lead(event_type) OVER (PARTITION BY trace_path ORDER BY line, event_type = 'shell')
            AS next_type,
        -- the tool that ran it: named after the binary as invoked (`cargo`), where `binary`
        -- is the path that name resolved to (`/root/.cargo/bin/rustup`)
        last_value(CASE WHEN event_type = 'tool_call' THEN tool_name END IGNORE NULLS) OVER (
            PARTITION BY trace_path ORDER BY line, event_type = 'shell'
            ROWS UNBOUNDED PRECEDING
        ) AS call_tool
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
        stdout_bytes,
        stderr_bytes,
        cwd,
        true AS known,
        CASE
            -- an interpreter, by either name, runs a script (`sh` may resolve to `dash`)
            WHEN regexp_extract(coalesce("binary", ''), '[^/]+$')
                IN ('bash', 'sh', 'zsh', 'fish', 'dash', 'ksh')
                THEN regexp_extract("binary", '[^/]+$')
            WHEN call_tool IN ('bash', 'sh', 'zsh', 'fish', 'dash', 'ksh') THEN call_tool
            -- another binary is known by the name it was invoked by, when the tool says it
            WHEN regexp_full_match(coalesce(call_tool, ''), '[A-Za-z0-9._+-]+') THEN call_tool
            ELSE regexp_extract(coalesce("binary", ''), '[^/]+$')
        END AS program,
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
        NULL,
        NULL,
        cwd,
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
-- what a command says depends on its program and text alone: it is split and read once
-- for each distinct pair (commands repeat: in the recorded sessions 470 of 1,617 are
-- distinct), then joined to the shell events that ran it (`ran`)
scripts AS (
    SELECT DISTINCT program AS script_program, command AS script
    FROM shell
),
-- a script (run by an interpreter, or by nothing named) is split into pipelines, and those
-- into commands; another binary ran once, with its argument list
pipelines AS (
    SELECT s.script_program, s.script, p.pipeline, p.n
    FROM scripts AS s,
        unnest(regexp_extract_all(
            -- here-document bodies are data, not commands; `||` is set apart from `|`
            replace(regexp_replace(
                s.script,
                '(<<-?\s*[''"]?(EOF|EOT|END|EOL|PY|PYEOF|SH|SCRIPT|CODE|DATA|TEXT|HEREDOC|MD|JSON|YAML|CONTENT|PATCH|DIFF)[''"]?[^\n]*)\n(?s:.*?)\n[ \t]*(EOF|EOT|END|EOL|PY|PYEOF|SH|SCRIPT|CODE|DATA|TEXT|HEREDOC|MD|JSON|YAML|CONTENT|PATCH|DIFF)([ \t]*\n|[ \t]*$)',
                '\1' || chr(10),
                'g'
            ), '||', chr(1)),
            '(?:''[^'']*''?|"(?:[^"\\]|\\(?s:.))*"?|\\(?s:.)|&[0-9>-]|[^''"\\;\n&\x01])+'
        )) WITH ORDINALITY AS p(pipeline, n)
    WHERE s.script_program = ''
        OR s.script_program IN ('bash', 'sh', 'zsh', 'fish', 'dash', 'ksh')
),
segments AS (
    SELECT
        p.script_program,
        p.script,
        p.n * 1000 + c.k AS seq,
        trim(c.segment) AS segment,
        trim(p.pipeline) AS pipeline,
        -- what this command prints goes on to the next one: the model sees only the end
        c.k < len(regexp_extract_all(p.pipeline, '(?:''[^'']*''?|"(?:[^"\\]|\\(?s:.))*"?|\\(?s:.)|[^''"\\|])+'))
            AS piped,
        true AS in_script
    FROM pipelines AS p,
        unnest(regexp_extract_all(
            p.pipeline, '(?:''[^'']*''?|"(?:[^"\\]|\\(?s:.))*"?|\\(?s:.)|[^''"\\|])+'
        )) WITH ORDINALITY AS c(segment, k)
    UNION ALL
    SELECT
        script_program,
        script,
        1,
        script_program || ' ' || script,
        script_program || ' ' || script,
        false,
        false
    FROM scripts
    WHERE script_program <> ''
        AND script_program NOT IN ('bash', 'sh', 'zsh', 'fish', 'dash', 'ksh')
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
        -- its output goes to a file (`> f`, `>> f`, `&> f`), not to the model
        in_script AND regexp_matches(segment, '(?:^|[^0-9<>&])1?>>?\s*[^\s&]|&>') AS to_file,
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
    -- Skip `VAR=value` assignments and wrappers (`sudo`, `env`, `time`, `timeout 60`,
    -- `xargs`: what `xargs cat` does is what `cat` does to the files it is given).
    SELECT
        *,
        -- each word beside the one before it (zipped: indexing the list inside the lambda
        -- would copy it for every word, a cost that grows with the square of its length)
        all_tokens[coalesce(list_position(list_transform(
            list_zip(all_tokens, list_prepend(NULL, all_tokens)),
            lambda w: w[1] IS NULL OR NOT (
                regexp_full_match(w[1], '[A-Za-z_][A-Za-z0-9_]*=.*')
                OR w[1] IN ('sudo', 'env', 'time', 'nohup', 'command', 'exec', 'nice', 'timeout',
                    'xargs')
                OR (w[2] = 'timeout' AND regexp_full_match(w[1], '[0-9.]+[smhd]?'))
            )
        ), true), len(all_tokens) + 1):] AS tokens
    FROM unquoted
),
-- the words of each command: its program, arguments and operands; how many commands its
-- script holds; and the `cd DIR`s before it in the script, which move its relative paths
-- (after a `cd` that cannot be followed, `cd`, `cd -`, `cd ~`, `cd $X`, they are unknown:
-- `located`)
worded AS (
    SELECT
        *,
        list(CASE WHEN tokens[1] IN ('cd', 'pushd') THEN coalesce(tokens[2], '~') END) OVER (
            PARTITION BY script_program, script ORDER BY seq
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ) AS dirs,
        count(*) OVER (PARTITION BY script_program, script) AS script_commands,
        regexp_extract(tokens[1], '[^/]+$') AS program,
        tokens[2:] AS args,
        list_filter(tokens[2:], lambda t: NOT starts_with(t, '-')) AS operands,
        -- operands once a pattern or script given as the first operand is set aside
        -- (unless it came with -e / -f)
        CASE
            WHEN list_has_any(tokens[2:], ['-e', '-f', '--regexp', '--file', '--expression'])
                THEN list_transform(list_filter(
                    list_zip(tokens[2:], list_prepend(NULL, tokens[2:])),
                    lambda w: w[1] IS NOT NULL AND NOT starts_with(w[1], '-')
                        AND coalesce(w[2], '') NOT IN
                            ('-e', '-f', '--regexp', '--file', '--expression')
                ), lambda w: w[1])
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
    FROM commands
    WHERE len(tokens) > 0
),
-- each command of each shell event (a line holds at most one shell event)
ran AS (
    SELECT
        s.trace_path, s.line, s.call_line, s.exit_code, s.stdout_bytes, s.cwd, s.known,
        w.* EXCLUDE (script_program, script)
    FROM shell AS s
    JOIN worded AS w
        ON w.script_program IS NOT DISTINCT FROM s.program AND w.script = s.command
),
located AS (
    SELECT
        *,
        list_reduce(
            -- from where the log says the command ran (other agents' logs), else as written
            [coalesce(cwd, '.')] || list_filter(coalesce(dirs, []), lambda d: d IS NOT NULL),
            lambda here, d: CASE
                WHEN here IS NULL OR regexp_matches(d, '^[~-]$|^~/|[$`*?]') THEN NULL
                WHEN starts_with(d, '/') THEN d
                ELSE here || '/' || d
            END
        ) AS here
    FROM ran
),
classified AS (
    SELECT
        *,
        CASE
            WHEN program IN ('cd', 'pushd', 'popd') THEN 'none'
            -- a git command that failed, run alone, changed nothing (git's changes are whole)
            WHEN program = 'git' AND coalesce(exit_code, 0) <> 0 AND known
                AND script_commands = 1
                THEN 'none'
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
            WHEN program IN ('cargo', 'go') AND subcommand = 'fmt' THEN 'format_all'
            WHEN program = 'ruff' THEN 'build'
            WHEN program = 'cargo' AND subcommand IN ('test', 'build', 'check', 'run', 'bench',
                'doc', 'tree', 'metadata', 'search') THEN 'build'
            WHEN program = 'cargo' AND subcommand = 'clippy' AND NOT list_contains(args, '--fix')
                THEN 'build'
            WHEN program = 'go' AND subcommand IN ('test', 'vet', 'build', 'list', 'version', 'env')
                THEN 'build'
            WHEN program IN ('npm', 'yarn', 'pnpm') AND subcommand = 'test' THEN 'build'
            -- `make` with no target, or the usual targets that build and test
            WHEN program IN ('make', 'gmake') AND list_filter(args, lambda t:
                NOT starts_with(t, '-') AND NOT contains(t, '=')) <@ ['all', 'build', 'test',
                'tests', 'check', 'lint', 'vet', 'compile', 'debug', 'release'] THEN 'build'
            WHEN program = 'mix' AND subcommand IN ('compile', 'test', 'credo', 'dialyzer',
                'xref', 'help', 'deps.tree') THEN 'build'
            WHEN program = 'mix' AND subcommand = 'format' THEN 'format_sub'
            WHEN regexp_full_match(program, 'python[0-9.]*') AND len(args) >= 2 AND args[1] = '-m'
                AND args[2] IN ('pytest', 'unittest', 'mypy', 'compileall', 'py_compile',
                    'pyflakes', 'pylint', 'flake8', 'doctest', 'json.tool', 'tabnanny')
                THEN 'build'
            WHEN program IN ('pytest', 'mypy', 'tsc', 'jest', 'pylint', 'flake8') THEN 'build'
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
            -- set aside, or bring back, what is not committed (see rules/session_changes.sql)
            WHEN program = 'git' AND subcommand = 'stash'
                AND coalesce(list_filter(args, lambda t: NOT starts_with(t, '-'))[2], 'push')
                    IN ('push', 'save', 'pop', 'apply')
                THEN 'uncommitted'
            WHEN program = 'git' AND subcommand = 'reset' AND list_contains(args, '--hard')
                AND len(list_filter(args, lambda t: NOT starts_with(t, '-'))) = 1
                THEN 'uncommitted'
            WHEN program = 'git' AND subcommand IN ('add', 'commit', 'fetch', 'tag', 'branch',
                'config', 'remote', 'notes', 'gc', 'update-index') THEN 'git_repository'
            -- a new branch where HEAD is changes no file
            WHEN program = 'git' AND subcommand IN ('checkout', 'switch')
                AND len(args) = 3 AND args[2] IN ('-b', '-B', '-c', '-C')
                THEN 'git_repository'
            WHEN program = 'git' AND subcommand IN ('checkout', 'restore')
                AND list_contains(args, '--') THEN 'git_after_dashes'
            WHEN program = 'git' AND subcommand = 'restore' THEN 'mutate_after_pattern'
            WHEN program = 'git' AND subcommand IN ('rm', 'mv') THEN 'git_files'
            WHEN program IN ('pwd', 'echo', 'printf', 'which', 'whoami', 'date', 'true',
                'false', 'test', '[', 'sleep', 'uname', 'id', 'hostname', 'ps', 'df', 'du',
                'free', 'stat', 'file', 'basename', 'dirname', 'realpath', 'readlink', 'tr',
                'export', 'type', 'whereis', 'history', 'jobs',
                'clear', 'set', 'unset', 'exit', 'return', ':', 'wait', 'read', 'nproc', 'env',
                'printenv', 'locale', 'tty', 'seq', 'yes', 'expr', 'let', 'declare', 'alias',
                'shopt', 'trap', 'umask', 'ulimit', 'hash', 'command') THEN 'none'
            ELSE 'mutate_all'
        END AS class
    FROM located
),
effects AS (
    SELECT
        c.trace_path,
        c.line,
        c.call_line,
        c.exit_code,
        c.known,
        c.seq,
        c.here,
        c.to_file,
        -- a whole file shown to the model: not piped on, not cut at the runtime's 16 KiB
        NOT c.piped AND coalesce(c.stdout_bytes, 0) < 16384 AS shown_whole,
        list_concat(
            list_transform(c.fed, lambda p: {kind: 'read', path: p, whole: false}),
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
                    list_transform(
                        CASE WHEN len(c.operands) > 0 THEN c.operands ELSE ['.'] END,
                        lambda p: {kind: 'mutate', path: p, whole: NULL}
                    )
                WHEN 'format_sub' THEN
                    list_transform(
                        CASE WHEN len(c.operands) > 1 THEN c.operands[2:] ELSE ['.'] END,
                        lambda p: {kind: 'mutate', path: p, whole: NULL}
                    )
                WHEN 'format_all' THEN [{kind: 'mutate', path: '.', whole: NULL}]
                WHEN 'uncommitted' THEN [{kind: 'mutate_changed', path: NULL, whole: NULL}]
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
                WHEN 'build' THEN [{kind: 'mutate_listings', path: NULL, whole: NULL}]
                ELSE []
            END,
            list_transform(c.written, lambda p: {kind: 'mutate', path: p, whole: NULL})
        ) AS found,
        -- compared, never shown: a long command is kept as its digest, so that its many
        -- effects (a `grep` of 10,000 files) do not each carry it
        CASE WHEN strlen(r.text) <= 256 THEN r.text ELSE 'md5:' || md5(r.text) END AS request
    FROM classified AS c,
        LATERAL (SELECT CASE WHEN c.piped THEN c.pipeline ELSE trim(c.segment) END AS text) AS r
),
-- each effect's path as the trace names it: relative to the script's `cd`s; a path that
-- names no one file (a glob, a variable, `~`) is its directory when changed, unknown when
-- read
-- one row per effect (unnest beside generate_subscripts in one select list walk the list
-- in lockstep; a lateral UNNEST copied each command's row for every effect it has)
exploded AS (
    SELECT
        trace_path, line, call_line, exit_code, known, seq, here, to_file, shown_whole, request,
        unnest(found) AS effect,
        generate_subscripts(found, 1) AS n
    FROM effects
),
resolved AS (
    SELECT
        * EXCLUDE (effect),
        effect.kind AS effect_kind,
        effect.whole AS effect_whole,
        CASE
            WHEN effect.kind IN ('mutate_all', 'mutate_listings') THEN NULL
            WHEN here IS NULL AND NOT starts_with(effect.path, '/') THEN NULL
            WHEN starts_with(effect.path, '/') OR here = '.' THEN effect.path
            ELSE here || '/' || effect.path
        END AS path
    FROM exploded
),
placed AS (
    SELECT
        *,
        path IS NOT NULL AND regexp_matches(path, '[*?\[{$`]|^~') AS vague
    FROM resolved
    UNION ALL BY NAME
    -- output the runtime cut (16 KiB) is kept whole in a new file, logs/shell-<ms>.log, in
    -- the workdir: the listing of `logs` (and of `.`) changed
    SELECT
        trace_path, line, call_line, exit_code, known, 1000000000 AS seq, false AS to_file,
        false AS shown_whole, NULL AS request, 1 AS n, 'mutate' AS effect_kind,
        NULL AS effect_whole, 'logs' AS path, false AS vague
    FROM shell
    WHERE known AND greatest(stdout_bytes, stderr_bytes) >= 16384
)
SELECT
    trace_path,
    line,
    row_number() OVER (PARTITION BY trace_path, line ORDER BY seq, n) AS seq,
    call_line,
    CASE
        WHEN effect_kind IN ('mutate', 'mutate_changed')
            AND ((path IS NULL AND effect_kind = 'mutate') OR regexp_matches(path, '^[~$`]'))
            THEN 'mutate_all'
        ELSE effect_kind
    END AS kind,
    CASE
        WHEN effect_kind IN ('mutate_all', 'mutate_listings') OR path IS NULL
            OR regexp_matches(path, '^[~$`]')
            OR (vague AND effect_kind = 'read') THEN NULL
        WHEN vague THEN normalise_path(regexp_replace(path, '/?[^/]*[*?\[{$`].*$', ''))
        ELSE normalise_path(path)
    END AS identity,
    coalesce(effect_whole AND shown_whole, false) AS whole,
    CASE WHEN effect_kind = 'read' AND NOT (effect_whole AND shown_whole) THEN request END
        AS request,
    known AND (coalesce(exit_code, 0) = 0
        OR NOT (SELECT enabled FROM context_rules WHERE name = 'failed_calls'))
        AND NOT (effect_kind = 'read' AND (path IS NULL OR vague OR to_file)) AS observed
FROM placed
