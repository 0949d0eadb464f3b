-- split_shell_words(command): a command line as the Murmur runtime splits it into arguments.
--
-- The runtime gives a binary that is not a shell interpreter its `command` as an argument
-- list, split by `split_shell_words` (murmur-nexus/murmur,
-- crates/capsule-runtime/src/shell.rs): words end at unquoted whitespace; `'` and `"` quote
-- (the quotes are dropped, a quote left open runs to the end); a backslash escapes the next
-- character everywhere, inside quotes too. No pipes, no redirection, no variables: `|` and
-- `>` are ordinary characters. Empty words (`''` alone) are dropped, as the runtime does.
-- @param command VARCHAR  The command text.
-- @column result VARCHAR[]  Its words.
list_filter(
    list_transform(
        regexp_extract_all(
            command,
            '(?:''(?:[^''\\]|\\(?s:.))*''?|"(?:[^"\\]|\\(?s:.))*"?|\\(?s:.)|[^\s''"\\])+'
        ),
        lambda word: regexp_replace(
            regexp_replace(
                word,
                '(\\(?s:.))|''((?:[^''\\]|\\(?s:.))*)''?|"((?:[^"\\]|\\(?s:.))*)"?',
                '\1\2\3',
                'g'
            ),
            '\\((?s:.))',
            '\1',
            'g'
        )
    ),
    lambda word: word <> ''
)
