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
-- agents' logs; after a `cd` inside a compound command or a subshell, or a `popd`, where
-- later commands ran is unknown, and so it is for a command more than 256 simple commands
-- (each stage of a pipeline is one) after a `cd`); words are split as the runtime splits
-- them. Then:
-- - output redirection (`> f`, `>> f`, `&> f`, a bare `> f`) changes `f`; `< f` reads it
--   in part (a `>` or `<` inside quotes redirects nothing); process substitution (`<(sort
--   a)`, `>(gzip > f)`) is not read: what ran inside may have changed anything;
-- - reads: `cat`/`bat`/`less`/`nl` read their files whole; `head`, `tail`, `grep`, `rg`,
--   `sed -n`, `awk`, `wc`, `sort`, `diff`, checksums read part of them; `ls`/`tree`/`find`
--   list a directory; `git status|diff|ls-files|grep|blame` read the working tree (`.`),
--   `git log|show|branch|tag|reflog|rev-parse` the repository's history (`.git`), both
--   at the repository's root wherever git runs (after `cd`s into its subdirectories too;
--   after another `cd`, what it read is unknown);
--   `ls -l` reads metadata; `grep|awk|sed -f F` read `F`. A partial read's request is the
--   simple command itself, so only the same command again (or an earlier whole read of
--   the file) covers it;
-- - changes: `sed -i`/`--in-place=`, `perl -i`, `rm`, `mv`, `cp`/`ln`/`install` (the
--   target, or every operand and the directory of `-t`), `sort -o F`, `uniq IN OUT`,
--   `touch`, `mkdir`, `tee`, `chmod`, and `git checkout -- f` / `git restore f` / `git rm` /
--   `git mv` change their files; formatters (`black`, `ruff format`, `prettier`, `gofmt`,
--   `cargo fmt`, ...) change what they are given (a directory, or `.`; `rustfmt` the
--   directory of its file, whose modules it formats too); `git stash [pop|apply]` and
--   `git reset --hard` what is not committed (`mutate_changed`: rules/session_changes.sql
--   says which files; a reset also the reflog); a path the session made a symbolic link
--   is not seen through; a command given its operands by `xargs` reads what it reads, or
--   may have changed anything;
--   `git add|commit|fetch|tag X|branch X|config` change the repository (`.git`), not the
--   files; a path with a glob changes the directory it lies in;
-- - tests and linters change no source, but their caches and outputs appear in directory
--   listings, searches and `git status` (`mutate_listings`): `cargo build|check|test|
--   clippy` (and Cargo.lock), `go build|test|vet`, `pytest`, `python -m pytest|unittest|
--   mypy|compileall`, `npm|yarn|pnpm test`, `ruff check`, `make test|check|lint|vet`;
--   `echo`, `pwd`, `which`, `stat`, `du`, `true`, ... change nothing;
-- - what a command prints into another command (`cat f | head`) is seen only as the
--   pipeline's end: a partial read, whose request is the pipeline; what goes to a file
--   (`cat f > g`) is not seen at all; a file `< f` feeds is read in part; a whole read
--   whose output the runtime cut (16 KiB) is a partial one, and the runtime keeps the whole
--   output in a new file under `logs/` (a change of that directory);
-- - a git command that failed, run alone, changed nothing (`git commit` with nothing to
--   commit);
-- - anything else (`make` with no target or one that builds, `cargo run`, scripts, `git
--   checkout BRANCH`, `git reset HEAD~1`, `git pull`, a path built from `$VAR`) may have
--   changed any local file: `mutate_all`.
--   It never changes what a URL returned.
-- A guess never creates a finding it could be wrong about: what is not understood
-- invalidates. The effects are placed at the shell event's line, in command order, and
-- belong to the tool call that ran it; a shell call counts as redundant only when every
-- read of it is (queries/redundant/context.sql). A command that prints what no read
-- returned (a test run, a script, a build, `date`, `echo $X`, what `xargs cat` read) adds a
-- read of nothing known, never matched: its call is no repeat (before, `cat a && pytest`
-- after `cat a` was flagged whole). A change prints nothing to read.
-- @column trace_path VARCHAR  Trace file.
-- @column line       BIGINT   Line of the shell event (of the tool call, when it has none).
-- @column seq        BIGINT   Order of the effect within the event.
-- @column call_line  BIGINT   Line of the tool call that ran the command (NULL when none precedes).
-- @column kind       VARCHAR  `read`, `mutate`, `mutate_all`, `mutate_listings` (directories' contents may have changed) or `mutate_changed` (what the session changed under `identity`, or anywhere when NULL, may have changed).
-- @column identity   VARCHAR  The normalised path (NULL for mutate_all).
-- @column whole      BOOLEAN  A read of the whole file.
-- @column request    VARCHAR  What a partial read asked (the simple command, or its pipeline; the MD5 digest of one over 256 characters); NULL when whole. For `mutate_changed`: `stash` (`git stash`), `restore` (`git stash pop|apply`), NULL (`git reset --hard`).
-- @column metadata   BOOLEAN  A read of what a file is, not what it holds (`ls -l f`): held only by the same request.
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
-- A script is known by a number from here on: each of its commands' rows carried its text,
-- and every window over its commands sorted by it (a script of 40 KB with 4,000 commands
-- took its three windows 1.3 s and 0.6 GB)
scripts AS (
    SELECT script_program, script, row_number() OVER () AS script_id
    FROM (SELECT DISTINCT program AS script_program, command AS script FROM shell)
),
-- a script (run by an interpreter, or by nothing named) is split into pipelines, and those
-- into commands; another binary ran once, with its argument list
pipelines AS (
    -- the pieces unnested in the select list, beside their numbers: a lateral UNNEST
    -- joined each piece back to its script by the script's text
    SELECT script_id, unnest(pieces) AS pipeline, generate_subscripts(pieces, 1) AS n
    FROM (
        SELECT
            script_id,
            regexp_extract_all(
                -- here-document bodies are data, not commands; `||` is set apart from `|`
                replace(regexp_replace(
                    script,
                    '(<<-?\s*[''"]?(EOF|EOT|END|EOL|PY|PYEOF|SH|SCRIPT|CODE|DATA|TEXT|HEREDOC|MD|JSON|YAML|CONTENT|PATCH|DIFF)[''"]?[^\n]*)\n(?s:.*?)\n[ \t]*(EOF|EOT|END|EOL|PY|PYEOF|SH|SCRIPT|CODE|DATA|TEXT|HEREDOC|MD|JSON|YAML|CONTENT|PATCH|DIFF)([ \t]*\n|[ \t]*$)',
                    '\1' || chr(10),
                    'g'
                ), '||', chr(1)),
                '(?:''[^'']*''?|"(?:[^"\\]|\\(?s:.))*"?|\\(?s:.)|&[0-9>-]|[^''"\\;\n&\x01])+'
            ) AS pieces
        FROM scripts
        WHERE script_program = ''
            OR script_program IN ('bash', 'sh', 'zsh', 'fish', 'dash', 'ksh')
    )
),
segments AS (
    SELECT
        script_id,
        n * 1000 + k AS seq,
        trim(segment) AS segment,
        trim(pipeline) AS pipeline,
        -- what this command prints goes on to the next one: the model sees only the end
        k < len(pieces) AS piped,
        true AS in_script
    FROM (
        SELECT *, unnest(pieces) AS segment, generate_subscripts(pieces, 1) AS k
        FROM (
            SELECT
                *,
                regexp_extract_all(
                    pipeline, '(?:''[^'']*''?|"(?:[^"\\]|\\(?s:.))*"?|\\(?s:.)|[^''"\\|])+'
                ) AS pieces
            FROM pipelines
        )
    )
    UNION ALL
    SELECT
        script_id,
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
        -- redirections, passing over quoted strings whole (a `>` or `<` inside quotes,
        -- `sed 's/<[^>]*>//g'`, `awk '$3 > 1'`, redirects nothing: an empty match)
        CASE WHEN in_script THEN list_filter(
            regexp_extract_all(
                segment,
                '''[^'']*''|"(?:[^"\\]|\\.)*"'
                    || '|(?:^|[^0-9&<>])(?:[0-9]*|&)>>?\s*(''[^'']*''|"[^"]*"|[^\s&|<>;''"]+)',
                1
            ),
            lambda t: t <> '' AND t NOT IN ('/dev/null', '''/dev/null''', '"/dev/null"')
        ) ELSE [] END AS quoted_written,
        CASE WHEN in_script THEN list_filter(
            regexp_extract_all(
                segment,
                '''[^'']*''|"(?:[^"\\]|\\.)*"'
                    || '|(?:^|[^<])<\s*(''[^'']*''|"[^"]*"|[^\s&|<>;''"]+)',
                1
            ),
            lambda t: t <> ''
        ) ELSE [] END AS quoted_fed,
        -- its output goes to a file (`> f`, `>> f`, `&> f`), not to the model
        -- (a `>` inside quotes, `grep -n '=>'`, `awk '$3 > 1'`, is none)
        in_script AND regexp_matches(
            regexp_replace(segment, '''[^'']*''|"(?:[^"\\]|\\.)*"', 'Q', 'g'),
            '(?:^|[^0-9<>&])1?>>?\s*[^\s&]|&>'
        ) AS to_file,
        split_shell_words(CASE WHEN in_script THEN regexp_replace(
            segment,
            '(?:[0-9]*|&)(?:>>?|<<?)\s*(?:&[0-9]+|''[^'']*''|"[^"]*"|[^\s&|<>;''"]+)',
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
    -- `xargs`: what `xargs cat` does is what `cat` does to the files it is given, which
    -- come from its input: `via_xargs`).
    SELECT
        * EXCLUDE (first_word, to_file),
        all_tokens[first_word:] AS tokens,
        list_contains(all_tokens[:first_word - 1], 'xargs') AS via_xargs,
        -- what a pipeline prints goes to a file when its last command's does: what each of
        -- its commands read is not seen (`cat a | tr a-z A-Z > b`)
        to_file OR (piped AND bool_or(to_file AND NOT piped) OVER (
            PARTITION BY script_id, seq // 1000
        )) AS to_file
    FROM (
    SELECT
        *,
        -- each word beside the one before it (zipped: indexing the list inside the lambda
        -- would copy it for every word, a cost that grows with the square of its length)
        coalesce(list_position(list_transform(
            list_zip(all_tokens, list_prepend(NULL, all_tokens)),
            lambda w: w[1] IS NULL OR NOT (
                regexp_full_match(w[1], '[A-Za-z_][A-Za-z0-9_]*=.*')
                OR w[1] IN ('sudo', 'env', 'time', 'nohup', 'command', 'exec', 'nice', 'timeout',
                    'xargs')
                OR (w[2] = 'timeout' AND regexp_full_match(w[1], '[0-9.]+[smhd]?'))
            )
        ), true), len(all_tokens) + 1) AS first_word
    FROM unquoted
    )
),
-- where each command moves the commands after it: `cd DIR` (or `pushd`) its directory; a
-- `cd` inside a compound command or a subshell (`then cd d`, `( cd d`, `(cd d`), or a
-- `popd`, `$`: where the commands after it ran is not known
moves AS (
    SELECT
        *,
        CASE
            WHEN tokens[1] IN ('cd', 'pushd') THEN coalesce(tokens[2], '~')
            WHEN tokens[1] = 'popd'
                OR regexp_full_match(coalesce(tokens[1], ''), '[({]+(?:cd|pushd|popd)')
                OR len(list_filter(list_zip(tokens, list_prepend(NULL, tokens)), lambda w:
                    w[1] IN ('cd', 'pushd', 'popd') AND w[2] IN ('then', 'do', 'else', 'elif',
                        'if', 'while', 'until', '(', '{', '!'))) > 0
                THEN '$'
        END AS move
    FROM commands
),
-- the words of each command: its program, arguments and operands; how many commands its
-- script holds; and the `cd DIR`s before it in the script, which move its relative paths
-- (after a `cd` that cannot be followed, `cd`, `cd -`, `cd ~`, `cd $X`, they are unknown:
-- `located`). A command's list holds the moves of the 256 commands before it, and `$`
-- first when one came earlier: where a command runs after that many is not followed
-- (every command's list of every move before it grew as the square of the script's
-- commands, and the directory made from it as the cube: a script of 1,000 `cd d && cat f`
-- took 7.9 s and 3.9 GB)
worded AS (
    SELECT
        * EXCLUDE (move, moved_earlier) REPLACE (
            CASE WHEN moved_earlier > 0 THEN list_prepend('$', coalesce(dirs, [])) ELSE dirs END
                AS dirs
        )
    FROM (
    SELECT
        *,
        -- the moves alone: a list of every command before it held a NULL for each other
        list(move) FILTER (WHERE move IS NOT NULL) OVER (
            PARTITION BY script_id ORDER BY seq
            ROWS BETWEEN 256 PRECEDING AND 1 PRECEDING
        ) AS dirs,
        count(move) OVER (
            PARTITION BY script_id ORDER BY seq
            ROWS BETWEEN UNBOUNDED PRECEDING AND 257 PRECEDING
        ) AS moved_earlier,
        count(*) OVER (PARTITION BY script_id) AS script_commands,
        -- a listing before it in its pipeline (what `xargs` gives it comes from one): `ls`,
        -- `find`, `git ls-files|status|diff|grep`
        coalesce(bool_or(
            regexp_extract(tokens[1], '[^/]+$') IN ('ls', 'tree', 'exa', 'eza', 'find', 'fd')
            OR (regexp_extract(tokens[1], '[^/]+$') = 'git'
                AND list_filter(tokens[2:], lambda t: NOT starts_with(t, '-'))[1]
                    IN ('ls-files', 'status', 'diff', 'grep', 'blame', 'difftool'))
        ) OVER (
            PARTITION BY script_id, seq // 1000 ORDER BY seq
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ), false) AS listed_before,
        regexp_extract(tokens[1], '[^/]+$') AS program,
        tokens[2:] AS args,
        list_filter(tokens[2:], lambda t: NOT starts_with(t, '-')) AS operands,
        -- operands once a pattern or script given as the first operand is set aside
        -- (unless it came with -e / -f, `--file=F`, `-eX`)
        CASE
            WHEN list_has_any(tokens[2:], ['-e', '-f', '--regexp', '--file', '--expression'])
                OR len(list_filter(tokens[2:], lambda t:
                    regexp_full_match(t, '--(?:regexp|file|expression)=.*|-[ef].+'))) > 0
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
        len(list_filter(tokens[2:], lambda t:
            regexp_full_match(t, '-[a-hj-zA-Z]*i.*|--in-place(?:=.*)?'))) > 0 AS in_place,
        -- the values of options that name a file (`-o F`, `--output=F`), by option
        list_transform(list_filter(list_zip(tokens[2:], list_prepend(NULL, tokens[2:])),
            lambda w: regexp_full_match(coalesce(w[2], ''), '-[A-Za-z]*o|--output')),
            lambda w: w[1])
            || list_transform(list_filter(tokens[2:], lambda t: regexp_full_match(t, '--output=.+')),
                lambda t: t[10:]) AS output_files,
        list_transform(list_filter(list_zip(tokens[2:], list_prepend(NULL, tokens[2:])),
            lambda w: w[2] IN ('-f', '--file')), lambda w: w[1])
            || list_transform(list_filter(tokens[2:], lambda t: regexp_full_match(t, '--file=.+')),
                lambda t: t[8:])
            || list_transform(list_filter(tokens[2:], lambda t: regexp_full_match(t, '-f.+')),
                lambda t: t[3:]) AS script_files,
        len(list_filter(tokens[2:], lambda t:
            regexp_full_match(t, '-[A-Za-z]*t[A-Za-z]*|--target-directory(?:=.*)?'))) > 0
            AS to_directory,
        -- `python -m json.tool [options] [in [out]]`: its files (`--indent N` takes a value)
        list_transform(list_filter(list_zip(tokens[4:], list_prepend(NULL, tokens[4:])),
            lambda w: NOT starts_with(w[1], '-') AND coalesce(w[2], '') <> '--indent'),
            lambda w: w[1]) AS json_files,
        -- `ls -l f` shows what the file is (size, owner, time), not what it holds
        regexp_extract(tokens[1], '[^/]+$') IN ('ls', 'exa', 'eza')
            AND len(list_filter(tokens[2:], lambda t: regexp_full_match(t,
                '-[A-Za-z0-9]*[lgnosi][A-Za-z0-9]*|--(?:format=(?:long|verbose)|size|inode|full-time)')))
                > 0 AS metadata,
        list_filter(tokens[2:], lambda t: NOT starts_with(t, '-'))[1] AS subcommand,
        -- `find`'s starting points: the words before its expression
        list_filter(
            tokens[2:list_position(list_transform(tokens[2:] || ['-'], lambda t:
                starts_with(t, '-') OR t IN ('(', '!', '\(')), true)],
            lambda t: NOT starts_with(t, '-') AND t NOT IN ('(', '!', '\(')
        ) AS roots
    FROM moves
    )
),
-- every `cd` before a command went down into a subdirectory (no `/`, `..`, `~`, `$`):
-- once for each command of each distinct script
descended AS (
    SELECT
        *,
        len(list_filter(coalesce(dirs, []), lambda d: d IS NOT NULL
            AND regexp_matches(d, '^[/~-]|(?:^|/)\.\.(?:/|$)|[$`*?]'))) = 0 AS subdirectories
    FROM worded
),
-- each shell event's script, by its number: joined to the script's commands by the text,
-- the optimiser carried the text beside each command to compare
run_scripts AS MATERIALIZED (
    SELECT s.* EXCLUDE (program, command), t.script_id
    FROM shell AS s
    JOIN scripts AS t ON t.script_program IS NOT DISTINCT FROM s.program AND t.script = s.command
),
-- each command of each shell event (a line holds at most one shell event)
ran AS (
    SELECT
        s.trace_path, s.line, s.call_line, s.exit_code, s.stdout_bytes, s.cwd, s.known,
        w.* EXCLUDE (script_id)
    FROM run_scripts AS s
    JOIN descended AS w USING (script_id)
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
        * EXCLUDE (class),
        -- a command given its operands by `xargs` (from its input, unknown here) reads what
        -- it reads; any other may have changed anything (`xargs sed -i ...`)
        CASE
            WHEN via_xargs AND class NOT IN ('read_whole', 'read_part', 'read_after_pattern',
                'list', 'list_roots', 'git_tree', 'git_history', 'git_stashes', 'none')
                THEN 'mutate_all'
            ELSE class
        END AS class
    FROM (
    SELECT
        *,
        CASE
            -- a redirection alone (`> f`), which changes its file
            WHEN len(tokens) = 0 THEN 'none'
            -- process substitution (`diff <(sort a) <(sort b)`, `tee >(gzip > f)`): the
            -- commands inside are not read
            WHEN regexp_matches(segment, '[<>]\(') THEN 'substituted'
            WHEN program IN ('cd', 'pushd', 'popd') THEN 'none'
            -- a git command that failed, run alone, changed nothing (git's changes are whole)
            WHEN program = 'git' AND coalesce(exit_code, 0) <> 0 AND known
                AND script_commands = 1
                THEN 'none'
            WHEN program IN ('cat', 'bat', 'batcat', 'less', 'more', 'nl', 'tac') THEN 'read_whole'
            -- `sort -o f`, `uniq in out`: the output goes to a file
            WHEN program = 'sort' AND len(output_files) > 0 THEN 'sort_output'
            WHEN program = 'uniq' AND len(files) >= 2 THEN 'uniq_output'
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
            -- into a directory named by an option (`cp -t dir a b`): every operand, and it
            WHEN program IN ('cp', 'ln', 'install', 'mv') AND to_directory THEN 'mutate_into'
            -- a symbolic link: its path, and what is read through it later (below)
            WHEN program = 'ln' AND len(list_filter(args, lambda t:
                regexp_full_match(t, '-[A-Za-z]*s[A-Za-z]*|--symbolic'))) > 0 THEN 'link'
            WHEN program IN ('cp', 'ln', 'install', 'rsync') THEN 'mutate_last'
            WHEN program IN ('chmod', 'chown', 'chgrp') THEN 'mutate_after_pattern'
            WHEN program IN ('black', 'isort', 'gofmt', 'prettier', 'clang-format',
                             'autopep8', 'yapf', 'shfmt') THEN 'format'
            -- rustfmt formats the modules a file declares too: the file's directory
            WHEN program = 'rustfmt' THEN 'format_dirs'
            WHEN program = 'ruff' AND (subcommand = 'format' OR list_contains(args, '--fix'))
                THEN 'format_sub'
            WHEN program IN ('cargo', 'go') AND subcommand = 'fmt' THEN 'format_all'
            WHEN program = 'ruff' THEN 'build'
            -- cargo writes Cargo.lock anew when the manifest changed (`cargo run` runs a
            -- program: anything)
            WHEN program = 'cargo' AND subcommand IN ('test', 'build', 'check', 'bench', 'doc',
                'tree', 'metadata') THEN 'cargo_build'
            WHEN program = 'cargo' AND subcommand = 'clippy' AND NOT list_contains(args, '--fix')
                THEN 'cargo_build'
            WHEN program = 'cargo' AND subcommand = 'search' THEN 'none'
            WHEN program = 'go' AND subcommand IN ('test', 'vet', 'build', 'list', 'version', 'env')
                THEN 'build'
            WHEN program IN ('npm', 'yarn', 'pnpm') AND subcommand = 'test' THEN 'build'
            -- `make` with the usual targets that test and check (a target that builds, or
            -- none, makes files the Makefile names: anything)
            WHEN program IN ('make', 'gmake') AND len(list_filter(args, lambda t:
                NOT starts_with(t, '-') AND NOT contains(t, '='))) > 0
                AND list_filter(args, lambda t: NOT starts_with(t, '-') AND NOT contains(t, '='))
                    <@ ['test', 'tests', 'check', 'lint', 'vet'] THEN 'build'
            WHEN program = 'mix' AND subcommand IN ('compile', 'test', 'credo', 'dialyzer',
                'xref', 'help', 'deps.tree') THEN 'build'
            WHEN program = 'mix' AND subcommand = 'format' THEN 'format_sub'
            -- `python -m json.tool [in [out]]`: reads `in` (or its input), writes `out`
            WHEN regexp_full_match(program, 'python[0-9.]*') AND len(args) >= 2 AND args[1] = '-m'
                AND args[2] = 'json.tool' THEN 'json_tool'
            WHEN regexp_full_match(program, 'python[0-9.]*') AND len(args) >= 2 AND args[1] = '-m'
                AND args[2] IN ('pytest', 'unittest', 'mypy', 'compileall', 'py_compile',
                    'pyflakes', 'pylint', 'flake8', 'doctest', 'tabnanny')
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
            -- what the stashes hold changes with every stash and no commit: what it shows
            -- is not placed (a read of nothing known), as the stashes change no history
            WHEN program = 'git' AND subcommand = 'stash'
                AND list_filter(args, lambda t: NOT starts_with(t, '-'))[2] IN ('list', 'show')
                THEN 'git_stashes'
            -- set aside, or bring back, what is not committed (see rules/session_changes.sql)
            WHEN program = 'git' AND subcommand = 'stash'
                AND coalesce(list_filter(args, lambda t: NOT starts_with(t, '-'))[2], 'push')
                    IN ('push', 'save')
                THEN 'stashed'
            WHEN program = 'git' AND subcommand = 'stash'
                AND list_filter(args, lambda t: NOT starts_with(t, '-'))[2] IN ('pop', 'apply')
                THEN 'restored'
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
    )
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
        c.cwd,
        c.class,
        c.metadata,
        c.to_file,
        c.subdirectories,
        -- a whole file shown to the model: not piped on, not cut at the runtime's 16 KiB
        NOT c.piped AND coalesce(c.stdout_bytes, 0) < 16384 AS shown_whole,
        list_concat(
            CASE WHEN c.class <> 'substituted' THEN
                list_transform(c.fed, lambda p: {kind: 'read', path: p, whole: false})
            END,
            CASE c.class
                WHEN 'read_whole' THEN
                    list_transform(c.operands, lambda p: {kind: 'read', path: p, whole: true})
                WHEN 'read_part' THEN
                    list_transform(c.files, lambda p: {kind: 'read', path: p, whole: false})
                WHEN 'read_after_pattern' THEN
                    -- and the file of patterns or of the program (`grep -f`, `awk -f`);
                    -- with no file searched named (`grep -r -f pats`), what it searched is
                    -- not known
                    list_transform(c.after_pattern || c.script_files,
                        lambda p: {kind: 'read', path: p, whole: false})
                    || CASE WHEN len(c.script_files) > 0 AND len(c.after_pattern) = 0
                        THEN [{kind: 'read', path: NULL, whole: false}] ELSE [] END
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
                WHEN 'link' THEN
                    list_transform(c.operands[-1:], lambda p: {kind: 'mutate', path: p, whole: NULL})
                WHEN 'mutate_into' THEN
                    list_transform(
                        c.operands || list_transform(
                            list_filter(c.args, lambda t: starts_with(t, '--target-directory=')),
                            lambda t: t[20:]
                        ),
                        lambda p: {kind: 'mutate', path: p, whole: NULL}
                    )
                WHEN 'sort_output' THEN
                    list_transform(c.output_files, lambda p: {kind: 'mutate', path: p, whole: NULL})
                WHEN 'uniq_output' THEN [{kind: 'mutate', path: c.files[2], whole: NULL}]
                WHEN 'json_tool' THEN
                    CASE WHEN len(c.json_files) >= 2
                        THEN [{kind: 'mutate', path: c.json_files[2], whole: NULL}]
                        ELSE list_transform(c.json_files,
                            lambda p: {kind: 'read', path: p, whole: false})
                    END
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
                WHEN 'format_dirs' THEN
                    list_transform(
                        CASE WHEN len(c.operands) > 0 THEN c.operands ELSE ['.'] END,
                        lambda p: {
                            kind: 'mutate',
                            path: CASE WHEN contains(p, '/') THEN regexp_replace(p, '/[^/]*$', '')
                                ELSE '.' END,
                            whole: NULL
                        }
                    )
                WHEN 'format_all' THEN [{kind: 'mutate', path: '.', whole: NULL}]
                -- a hard reset changes the files and the reflog; a stash the files and the
                -- stashes, which are read as nothing known (`git_stashes`)
                WHEN 'uncommitted' THEN [{kind: 'mutate_changed', path: NULL, whole: NULL},
                    {kind: 'mutate', path: '.git', whole: NULL}]
                WHEN 'stashed' THEN [{kind: 'mutate_changed', path: NULL, whole: NULL}]
                WHEN 'restored' THEN [{kind: 'mutate_changed', path: NULL, whole: NULL}]
                WHEN 'git_stashes' THEN [{kind: 'read', path: NULL, whole: false}]
                -- what runs inside, `<(python3 gen.py)` as `>(gzip > f)`, may change anything
                WHEN 'substituted' THEN [{kind: 'read', path: NULL, whole: false},
                    {kind: 'mutate_all', path: NULL, whole: NULL}]
                WHEN 'cargo_build' THEN [{kind: 'mutate_listings', path: NULL, whole: NULL},
                    {kind: 'mutate', path: 'Cargo.lock', whole: NULL}]
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
            list_transform(c.written, lambda p: {kind: 'mutate', path: p, whole: NULL}),
            -- what it prints is not what a read returned (a test's report, a script's output,
            -- the date, what `xargs cat` read): the call returned something new, and counts
            -- as no repeat (an unknown read, never matched)
            CASE WHEN NOT c.to_file AND (
                c.class IN ('build', 'cargo_build', 'mutate_all', 'format', 'format_sub',
                    'format_all', 'format_dirs', 'uncommitted', 'stashed', 'restored',
                    'git_files', 'git_after_dashes')
                OR (c.class = 'git_repository' AND c.subcommand <> 'add')
                -- (unless a listing before it in the pipeline read what it is given from:
                -- `find . -name '*.py' | xargs grep x`, `git ls-files | xargs wc -l`)
                OR (c.via_xargs AND c.class <> 'none' AND NOT c.listed_before)
                OR c.program IN ('date', 'ps', 'df', 'du', 'free', 'stat', 'file', 'history',
                    'jobs', 'uptime')
                OR (c.program IN ('echo', 'printf') AND regexp_matches(c.segment, '[$`]'))
            ) THEN [{kind: 'read', path: NULL, whole: false}] END
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
        trace_path, line, call_line, exit_code, known, seq, here, cwd, class, metadata, to_file,
        subdirectories, shown_whole, request,
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
            -- git answers for the whole repository wherever it runs in it: its tree and its
            -- history stay where the command started, after `cd`s into its subdirectories
            -- too; after another `cd` (maybe into another repository) what it read is
            -- unknown, what it changed is changed there too
            WHEN effect.path IN ('.', '.git') AND (class IN ('git_tree', 'git_history',
                    'git_repository', 'uncommitted')
                    OR (class = 'git_files' AND effect.path = '.git'))
                THEN CASE
                    WHEN effect.kind = 'read' AND here IS DISTINCT FROM coalesce(cwd, '.')
                        AND NOT subdirectories
                        THEN NULL
                    -- (a change there is taken as the session's repository's)
                    WHEN cwd IS NULL THEN effect.path
                    ELSE cwd || '/' || effect.path
                END
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
),
effected AS MATERIALIZED (
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
    CASE
        WHEN effect_kind = 'read' AND NOT (effect_whole AND shown_whole) THEN request
        -- what a stash did: set aside (`stash`) or brought back (`restore`) what was not
        -- committed (rules/session_changes.sql)
        WHEN effect_kind = 'mutate_changed' AND class = 'stashed' THEN 'stash'
        WHEN effect_kind = 'mutate_changed' AND class = 'restored' THEN 'restore'
    END AS request,
    coalesce(effect_kind = 'read' AND metadata, false) AS metadata,
    known AND (coalesce(exit_code, 0) = 0
        OR NOT (SELECT enabled FROM context_rules WHERE name = 'failed_calls'))
        AND NOT (effect_kind = 'read' AND (path IS NULL OR vague OR to_file)) AS observed,
    class = 'link' AND effect_kind = 'mutate' AS links
FROM placed
),
-- a path the session made a symbolic link (`ln -s target link`) returns what its target
-- holds, whose changes are not followed under its name: what is read through it (or
-- below it, a link to a directory) after is not seen (a repeat is never flagged), and a
-- change through it, which changes the target, may have changed anything
links AS (
    SELECT trace_path, identity, min(line) AS line
    FROM effected
    WHERE links AND identity IS NOT NULL
    GROUP BY ALL
),
linked AS (
    SELECT e.trace_path, e.line, e.seq, bool_or(l.line < e.line) AS after, true AS through
    FROM effected AS e
    JOIN links AS l
        ON l.trace_path = e.trace_path AND l.line <= e.line
        AND (e.identity = l.identity OR starts_with(e.identity, l.identity || '/'))
    WHERE e.kind IN ('read', 'mutate')
    GROUP BY ALL
)
SELECT
    e.trace_path,
    e.line,
    e.seq,
    e.call_line,
    CASE WHEN e.kind = 'mutate' AND k.after THEN 'mutate_all' ELSE e.kind END AS kind,
    CASE WHEN e.kind = 'mutate' AND k.after THEN NULL ELSE e.identity END AS identity,
    e.whole,
    e.request,
    e.metadata,
    e.observed AND NOT (e.kind = 'read' AND coalesce(k.through, false)) AS observed
FROM effected AS e
LEFT JOIN linked AS k USING (trace_path, line, seq)
