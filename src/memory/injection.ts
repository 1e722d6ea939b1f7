// Prompt-injection detection on inbound text: precompiled patterns, each one linear pass, names of what matched.
//
// Every pattern is a fixed phrase with bounded gaps (`{0,n}` over one character class, never a quantifier inside a
// quantified group that could match the same text twice), so matching costs at most a constant per start position
// and each scan is linear in the characters scanned. Those are capped by `maxScanChars`: the head and tail of a
// longer text are scanned (an appended payload is the common case), the middle is not. One regex per pattern, not
// one alternation of all: V8 rejects most start positions of a single pattern by its first characters, which it
// cannot do for a ten-way alternation (measured about 15 times slower on ordinary text). No `u` flag either:
// Unicode case folding made every scan much slower, so the tag characters are matched as their UTF-16 surrogates.

/** Characters scanned at most: the first and last half of this many. */
export const DEFAULT_INJECTION_SCAN_CHARS = 32_000;

/** The pattern names `detectInjection` reports. */
export const INJECTION_PATTERNS = [
  'instruction_override',
  'new_instructions',
  'role_hijack',
  'safety_bypass',
  'system_prompt_exfiltration',
  'fake_role_tag',
  'encoded_payload',
  'hidden_unicode',
  'conceal_from_user',
  'data_exfiltration',
] as const;

export type InjectionPattern = (typeof INJECTION_PATTERNS)[number];

export interface InjectionResult {
  detected: boolean;
  /** Names of the patterns that matched, in INJECTION_PATTERNS order, each once. */
  patterns: readonly InjectionPattern[];
}

// Bounded filler between the words of a phrase: up to N short words ("all of the", "your previous").
const gap = (words: number) => `(?:[\\s,;:"]{1,3}[\\w'-]{1,20}){0,${words}}[\\s,;:"]{1,3}`;
const ws = '[\\s_-]{1,3}';

const SOURCES: Record<InjectionPattern, string> = {
  instruction_override: [
    `\\b(?:ignore|disregard|forget|override|skip|bypass|abandon|drop)${gap(3)}(?:previous|prior|above|earlier|preceding|foregoing|former|original|initial|system|developer|all)${ws}(?:instructions?|prompts?|rules|directions|guidelines|guidance|directives|commands|context|constraints)\\b`,
    `\\bforget${ws}(?:everything|all)${ws}(?:you${ws}(?:were|have${ws}been)${ws}told|above|before|so${ws}far)\\b`,
    `\\b(?:ignore|disregard)${ws}(?:everything|anything)${ws}(?:above|before|else${ws}you${ws}were${ws}told)\\b`,
  ].join('|'),
  new_instructions: [
    `\\b(?:your|the)${ws}new${ws}(?:instructions|task|directive|objective|goal|role|orders)${ws}(?:is|are)\\b`,
    `\\bnew${ws}(?:system${ws})?(?:instructions|directives|rules)\\s{0,2}:`,
    `\\bfrom${ws}now${ws}on,?${ws}(?:you${ws}(?:are|will${ws}(?:act|obey|ignore|only)|must${ws}(?:obey|ignore|act))|act${ws}as|ignore|obey)\\b`,
    `\\b(?:updated|revised|real|actual|true)${ws}(?:system${ws})?instructions\\s{0,2}:`,
  ].join('|'),
  role_hijack: [
    `\\byou${ws}are${ws}now${ws}(?:no${ws}longer|free${ws}(?:of|from)|unrestricted|unfiltered|uncensored|jailbroken|in${ws}(?:developer|god|dan|jailbreak|unrestricted)${ws}mode|(?:an?${ws})?(?:dan|evil|rogue)\\b|an?${ws}(?:unrestricted|unfiltered|uncensored|evil|different|new)${ws}(?:ai|assistant|model|bot|persona|character|system))`,
    `\\byou${ws}are${ws}no${ws}longer${ws}(?:an?${ws})?(?:bound|restricted|limited|constrained|ai|assistant|language${ws}model|chatbot)\\b`,
    `\\b(?:pretend|act|behave|roleplay)${gap(2)}(?:as|to${ws}be|you${ws}are)${ws}(?:an?${ws})?(?:unrestricted|unfiltered|uncensored|jailbroken|evil|rogue)\\b`,
    `\\b(?:enter|enable|activate|switch${ws}to|turn${ws}on)${ws}(?:developer|god|dan|jailbreak|unrestricted|sudo)${ws}mode\\b`,
    `\\bdo${ws}anything${ws}now\\b`,
  ].join('|'),
  safety_bypass: `\\b(?:disable|bypass|turn${ws}off|ignore|remove|circumvent|override)${ws}(?:your|all|any|the)${ws}(?:safety|content|security|ethical|moderation)${ws}(?:filters?|guidelines|guardrails|restrictions|policies|rules|checks|protocols)\\b`,
  system_prompt_exfiltration: [
    `\\b(?:reveal|show|print|repeat|output|display|tell|give|leak|dump|recite|disclose|share|write${ws}out|spell${ws}out)${gap(2)}your${ws}(?:full${ws}|entire${ws}|complete${ws}|original${ws}|initial${ws}|hidden${ws}|secret${ws}|exact${ws})?(?:system${ws}prompt|system${ws}message|initial${ws}(?:prompt|instructions)|hidden${ws}(?:prompt|instructions)|original${ws}(?:prompt|instructions)|instructions${ws}verbatim|prompt${ws}verbatim)\\b`,
    `\\bwhat${ws}(?:is|are|was|were)${ws}your${ws}(?:system${ws}prompt|initial${ws}instructions|hidden${ws}instructions|original${ws}instructions)\\b`,
    `\\b(?:repeat|print|output|recite)${ws}(?:all${ws}|everything${ws}|the${ws}(?:text|words|content)${ws})?(?:above|before)${ws}this${ws}(?:line|message|point)\\b`,
    `\\b(?:repeat|print|output)${ws}(?:the${ws})?(?:text|words)${ws}above${ws}(?:verbatim|word${ws}for${ws}word)\\b`,
  ].join('|'),
  fake_role_tag: [
    `<\\/?\\s{0,2}(?:system|sys|assistant|tool|tool_result|tool_output|function_results?|instructions?|developer|admin)\\s{0,2}>`,
    `<\\|(?:im_start|im_end|system|assistant|endoftext|start_header_id|end_header_id|eot_id)\\|>`,
    `\\[\\/?(?:inst|sys)\\]|<<\\/?sys>>`,
    `(?:^|\\n)\\s{0,4}#{1,4}\\s{0,2}(?:system|developer)(?:${ws}(?:prompt|message|override|instructions?))?\\s{0,2}:?\\s{0,2}(?:\\n|$)`,
    `(?:^|\\n)\\s{0,4}(?:system|developer)${ws}(?:prompt|message|override|instructions?)\\s{0,2}:`,
    // A boundary marker only when framed like one ("--- END OF SYSTEM PROMPT ---"), not in prose about manuals.
    `(?:-{2,}|={2,}|\\*{2,}|#{1,4}|\\[|<)\\s{0,3}(?:end|begin|start)${ws}of${ws}(?:the${ws})?(?:system${ws}prompt|system${ws}message|instructions|user${ws}input)\\b`,
  ].join('|'),
  encoded_payload: [
    `\\b(?:decode|decrypt|deobfuscate|unscramble|translate)${gap(5)}(?:base64|b64|rot13|rot-13|hex|binary|cipher|encoded)${gap(6)}(?:follow|execute|obey|run|do${ws}what|carry${ws}out|act${ws}on)\\b`,
    `\\b(?:base64|rot13|hex)[\\s-]{1,3}encoded${ws}(?:instructions|commands|prompt|payload)\\b`,
    `\\b(?:execute|follow|obey|run)${ws}(?:the${ws})?(?:decoded|following${ws}(?:base64|encoded))${ws}(?:text|string|instructions|commands|payload)\\b`,
  ].join('|'),
  // Unicode tag characters (U+E0000–U+E007F, surrogates DB40 DC00–DC7F) smuggle invisible ASCII; runs of
  // zero-width characters hide text.
  hidden_unicode: `\\uDB40[\\uDC00-\\uDC7F]|[\\u200B-\\u200D\\u2060\\uFEFF]{3}`,
  conceal_from_user: [
    `\\b(?:do${ws}not|don'?t|never|must${ws}not)${ws}(?:tell|inform|alert|notify|mention${ws}(?:this|it|that)${ws}to|reveal${ws}(?:this|it|that)${ws}to|let)${ws}the${ws}user\\b`,
    `\\bwithout${ws}(?:telling|informing|alerting|notifying)${ws}the${ws}user\\b`,
    `\\b(?:keep|hide)${ws}(?:this|it|these${ws}instructions)${ws}(?:secret${ws})?from${ws}the${ws}user\\b`,
    `\\bthe${ws}user${ws}(?:must|should)${ws}(?:not|never)${ws}(?:know|find${ws}out|see${ws}this)\\b`,
  ].join('|'),
  data_exfiltration: `\\b(?:send|post|forward|upload|exfiltrate|transmit|email|leak)${gap(2)}(?:the${ws}|this${ws}|your${ws}|all${ws})?(?:conversation|chat${ws}history|message${ws}history|memories|memory${ws}entries|api${ws}keys?|credentials|secrets|passwords|access${ws}tokens?|system${ws}prompt)${gap(4)}(?:to|at)${ws}(?:https?:\\/\\/|[\\w.-]{1,64}@[\\w-]{1,64}\\.)`,
};

/** Compiled once at load; `test` on a non-global regex keeps no state between calls. */
const COMPILED: readonly (readonly [InjectionPattern, RegExp])[] = INJECTION_PATTERNS.map(
  (name) => [name, new RegExp(SOURCES[name], 'i')] as const,
);

const NOTHING_FOUND: InjectionResult = Object.freeze({ detected: false, patterns: Object.freeze([]) });

/**
 * Whether `regex` matches the text, or its head or tail half of `maxScanChars` when longer. The halves are tested
 * apart: slicing is O(1) in V8, where joining them would copy up to maxScanChars characters on every call.
 */
function matchesBounded(regex: RegExp, text: string, maxScanChars: number): boolean {
  if (text.length <= maxScanChars) return regex.test(text);
  const half = Math.floor(maxScanChars / 2);
  return regex.test(text.slice(0, half)) || regex.test(text.slice(text.length - half));
}

/** Pattern-based detection; `maxScanChars` bounds the work for any input length. */
export function detectInjection(text: string, maxScanChars = DEFAULT_INJECTION_SCAN_CHARS): InjectionResult {
  let patterns: InjectionPattern[] | undefined;
  for (const [name, regex] of COMPILED) {
    if (matchesBounded(regex, text, maxScanChars)) (patterns ??= []).push(name);
  }
  return patterns === undefined ? NOTHING_FOUND : { detected: true, patterns };
}

/**
 * V8 compiles a regex on its first use and optimises it after a few; running them once on ordinary text off the
 * request path keeps that cost (tens of ms) out of the first turn that scans a message.
 */
export function warmInjectionPatterns(): void {
  for (let round = 0; round < 3; round += 1)
    detectInjection('Warm-up: plan the trip, send the report to the team, and tell me the weather.');
}
