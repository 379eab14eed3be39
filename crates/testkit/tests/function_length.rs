//! Functions fit on a screen: no function in a library or binary source file is longer than
//! 150 lines (test modules and test files left out). A longer function does several things a
//! reader must hold at once; split it by what it does.
//!
//! The scan lexes each file (comments, strings, raw strings and char literals skipped, so a
//! brace inside them does not count), finds each `fn` and the braces of its body, and counts
//! the lines from `fn` to the closing brace. `KNOWN` lists the functions over the limit today;
//! a function over it that is not listed fails the test, and so does a listed one that is no
//! longer over it (remove its line), so the list can only shrink.

use iofit_testkit::{crates_dir, rust_files};

const MAX_LINES: usize = 150;

/// Functions over the limit when this test was written: (file relative to `crates/`, name).
/// Remove a line when its function is split; never add one.
const KNOWN: &[(&str, &str)] = &[];

/// A token that matters for finding functions, with its line (1-based).
#[derive(Debug, PartialEq)]
enum Token {
    Word(String),
    Open,
    Close,
    Semicolon,
    CfgTest,
}

/// The file's code tokens: words, braces and semicolons outside comments and literals.
fn tokens(text: &str) -> Vec<(usize, Token)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0usize, 1usize);
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            loop {
                if i >= chars.len() {
                    break;
                }
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(chars[i] == '\n');
                    i += 1;
                }
            }
        } else if c == 'r'
            && (at(i + 1) == '"' || (at(i + 1) == '#' && at(i + 2) != '['))
            && !word_char(at(i.wrapping_sub(1)))
        {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while at(j) == '#' {
                hashes += 1;
                j += 1;
            }
            if at(j) != '"' {
                out.push((line, Token::Word("r".into())));
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (0..hashes).all(|k| at(j + 1 + k) == '#') {
                    j += 1 + hashes;
                    break;
                }
                line += usize::from(chars[j] == '\n');
                j += 1;
            }
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                line += usize::from(at(i) == '\n');
                i += 1;
            }
            i += 1;
        } else if c == '\'' {
            // A char literal ('a', '\n', '\u{1F600}') or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
            }
        } else if c == '#' && text_at(&chars, i, "#[cfg(test)]") {
            out.push((line, Token::CfgTest));
            i += "#[cfg(test)]".len();
        } else if word_char(c) {
            let start = i;
            while word_char(at(i)) {
                i += 1;
            }
            out.push((line, Token::Word(chars[start..i].iter().collect())));
        } else {
            match c {
                '{' => out.push((line, Token::Open)),
                '}' => out.push((line, Token::Close)),
                ';' => out.push((line, Token::Semicolon)),
                _ => {}
            }
            i += 1;
        }
    }
    out
}

fn word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn text_at(chars: &[char], i: usize, text: &str) -> bool {
    text.chars()
        .enumerate()
        .all(|(k, t)| chars.get(i + k) == Some(&t))
}

/// Index just past the block that opens at or after `from` (or past a `;` that comes first).
fn skip_item(tokens: &[(usize, Token)], from: usize) -> usize {
    let mut i = from;
    while i < tokens.len() && tokens[i].1 != Token::Open {
        if tokens[i].1 == Token::Semicolon {
            return i + 1;
        }
        i += 1;
    }
    let mut depth = 0;
    while i < tokens.len() {
        match tokens[i].1 {
            Token::Open => depth += 1,
            Token::Close => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// Every function of the file outside `#[cfg(test)]` items: (name, lines).
fn functions(text: &str) -> Vec<(String, usize)> {
    let tokens = tokens(text);
    let mut found = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].1 {
            Token::CfgTest => i = skip_item(&tokens, i + 1),
            Token::Word(w) if w == "fn" => {
                let name = match tokens.get(i + 1) {
                    Some((_, Token::Word(name))) => name.clone(),
                    _ => String::new(),
                };
                let end = skip_item(&tokens, i + 1);
                let last = tokens[end - 1].0;
                if tokens[end - 1].1 == Token::Close {
                    found.push((name, last - tokens[i].0 + 1));
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    found
}

#[test]
fn no_function_is_longer_than_a_screen() {
    let root = crates_dir();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        rust_files(&entry.path().join("src"), &mut files);
    }
    // A `tests.rs` file is a test module declared by its parent: not library code.
    files.retain(|path| path.file_name().is_some_and(|n| n != "tests.rs"));
    assert!(files.len() > 100, "found only {} files", files.len());
    let mut long = Vec::new();
    for file in &files {
        let relative = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(file).unwrap();
        for (name, lines) in functions(&text) {
            if lines > MAX_LINES {
                long.push((relative.clone(), name, lines));
            }
        }
    }
    let new: Vec<String> = long
        .iter()
        .filter(|(file, name, _)| !KNOWN.contains(&(file.as_str(), name.as_str())))
        .map(|(file, name, lines)| format!("{file}: fn {name} is {lines} lines"))
        .collect();
    assert!(
        new.is_empty(),
        "functions over {MAX_LINES} lines (split them by what they do):\n{}",
        new.join("\n")
    );
    let gone: Vec<String> = KNOWN
        .iter()
        .filter(|(file, name)| !long.iter().any(|(f, n, _)| f == file && n == name))
        .map(|(file, name)| format!("{file}: fn {name}"))
        .collect();
    assert!(
        gone.is_empty(),
        "no longer over {MAX_LINES} lines: remove from KNOWN:\n{}",
        gone.join("\n")
    );
}

#[test]
fn the_scan_counts_bodies_and_skips_literals_and_tests() {
    let text =
        "fn a() {\n    let s = \"}\";\n    let c = '}';\n    // }\n    let r = r#\"}\"#;\n}\n\
                trait T { fn declared(&self); }\n\
                #[cfg(test)]\nmod tests {\n    fn hidden() {}\n}\n\
                impl X { fn b<'a>(x: &'a str) -> &'a str {\n x\n }\n}\n";
    let found = functions(text);
    assert_eq!(
        found,
        vec![("a".to_string(), 6), ("b".to_string(), 3)],
        "{found:?}"
    );
}
