/**
 * Syntax highlighting for code blocks: highlight.js core with a bundled set of common languages.
 * Loaded only by a dynamic import (highlight-loader.ts) the first time a reply holds a code block,
 * so the first paint does not pay for it.
 */

import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const LANGUAGES = { bash, c, cpp, css, diff, go, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/** Guessing the language of an unlabelled block costs a pass per language: only for blocks up to this size. */
const AUTO_MAX_CHARS = 20_000;
const HIGHLIGHT_MAX_CHARS = 200_000;

/** The block's HTML (escaped, with `hljs-*` spans), or "" to leave it to markdown-it's plain escaping. */
export function highlight(code: string, lang: string): string {
  if (code.length > HIGHLIGHT_MAX_CHARS) return "";
  const name = lang.trim().toLowerCase();
  try {
    if (name && hljs.getLanguage(name)) return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
    if (!name && code.length <= AUTO_MAX_CHARS) return hljs.highlightAuto(code).value;
  } catch (err) {
    console.warn("[highlight] a code block could not be highlighted:", err);
  }
  return "";
}
