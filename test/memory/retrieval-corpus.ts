// The fixed retrieval corpus: 50 target memories with one query each (lexical, paraphrase, mixed) and 170 distractors.

export type QueryKind = 'lexical' | 'paraphrase' | 'mixed';

export interface CorpusQuery {
  kind: QueryKind;
  query: string;
  /** Index into TARGETS of the one relevant entry. */
  target: number;
}

/** The memories the queries look for. */
export const TARGETS: readonly string[] = [
  'Maria is allergic to peanuts and carries an epinephrine pen',
  'The quarterly budget review moved to the second Thursday of March',
  'Jonas prefers window seats on long flights',
  'The staging database password rotates every ninety days',
  'Aisha drinks her coffee black with no sugar',
  'The team offsite will be held in Lisbon in September',
  'Tom\'s daughter plays the violin in the school orchestra',
  'Deployments to production are frozen during the last week of December',
  'The office wifi network is called Harbor and the guest network is Harbor-Guest',
  'Priya is learning Japanese and practises with flashcards every morning',
  'The invoice for the cloud hosting contract is paid on the fifteenth of each month',
  'Kenji\'s favourite restaurant is a small ramen shop near the central station',
  'The customer Acme Corporation renewed their support plan for three years',
  'Lena runs marathons and trained for the Berlin race last autumn',
  'The printer on the fourth floor jams when printing double sided',
  'Our main competitor launched a cheaper subscription tier in April',
  'David is colour blind, so charts should not rely on red and green',
  'The onboarding checklist includes a security training video',
  'Sofia moved from Madrid to Amsterdam to join the design team',
  'The API rate limit for partners is one thousand requests per minute',
  'Omar volunteers at the animal shelter on Saturday mornings',
  'The annual company party takes place at the botanical gardens',
  'Grace manages the mobile application release schedule',
  'The legal team must approve any contract above fifty thousand euros',
  'Mateo is vegetarian and dislikes mushrooms',
  'The backup server in Frankfurt replicates data every six hours',
  'Hannah\'s birthday is on the twelfth of July',
  'The marketing newsletter is sent every second Tuesday',
  'Ravi broke his wrist skiing and is typing with one hand',
  'The conference room called Everest has a broken projector',
  'Chloe speaks fluent French, German and Italian',
  'Expense reports must be submitted within thirty days of purchase',
  'Lucas collects vintage mechanical watches',
  'The data retention policy keeps logs for eighteen months',
  'Nadia\'s cat is named Pepper and is afraid of thunderstorms',
  'The sales forecast assumes eight percent growth next year',
  'Ben commutes by bicycle even in winter',
  'The firewall blocks outbound traffic on port twenty five',
  'Elena wrote her thesis on coral reef ecology',
  'New laptops are ordered through the internal hardware portal',
  'Yusuf is fasting during Ramadan and skips lunch meetings',
  'The support hotline is staffed around the clock on weekdays',
  'Ingrid plays chess online and has a rating above two thousand',
  'The warehouse in Rotterdam closes early on Fridays',
  'Carlos is allergic to cats and sneezes in the office when the cat visits',
  'The research grant application deadline is the first of November',
  'Mia photographs birds and has a large telephoto lens',
  'The kitchen dishwasher is emptied by whoever arrives first',
  'Akira plans to retire next spring and move to the countryside',
  'The encryption keys are stored in the hardware security module',
];

export const QUERIES: readonly CorpusQuery[] = [
  // Lexical: the query repeats the memory's own key words.
  { kind: 'lexical', query: 'Maria peanuts epinephrine', target: 0 },
  { kind: 'lexical', query: 'quarterly budget review Thursday', target: 1 },
  { kind: 'lexical', query: 'Jonas window seats flights', target: 2 },
  { kind: 'lexical', query: 'staging database password rotates', target: 3 },
  { kind: 'lexical', query: 'office wifi network Harbor', target: 8 },
  { kind: 'lexical', query: 'cloud hosting invoice paid', target: 10 },
  { kind: 'lexical', query: 'Acme Corporation support plan', target: 12 },
  { kind: 'lexical', query: 'printer fourth floor jams', target: 14 },
  { kind: 'lexical', query: 'API rate limit partners', target: 19 },
  { kind: 'lexical', query: 'animal shelter Saturday', target: 20 },
  { kind: 'lexical', query: 'backup server Frankfurt replicates', target: 25 },
  { kind: 'lexical', query: 'Everest projector', target: 29 },
  { kind: 'lexical', query: 'vintage mechanical watches', target: 32 },
  { kind: 'lexical', query: 'Pepper thunderstorms', target: 34 },
  { kind: 'lexical', query: 'firewall outbound port', target: 37 },
  { kind: 'lexical', query: 'warehouse Rotterdam Fridays', target: 43 },
  { kind: 'lexical', query: 'hardware security module encryption keys', target: 49 },
  // Paraphrase: other forms of the words (plurals, verb forms, compounds), few shared exact words.
  { kind: 'paraphrase', query: 'what allergy does maria have', target: 0 },
  { kind: 'paraphrase', query: 'how does aisha take coffees', target: 4 },
  { kind: 'paraphrase', query: 'where is the offsites location', target: 5 },
  { kind: 'paraphrase', query: 'which instrument is played by toms daughter', target: 6 },
  { kind: 'paraphrase', query: 'freezing deployment around december', target: 7 },
  { kind: 'paraphrase', query: 'priya studying japanese flashcard practice', target: 9 },
  { kind: 'paraphrase', query: 'kenjis favorite ramen restaurants', target: 11 },
  { kind: 'paraphrase', query: 'lena running a marathon in berlin', target: 13 },
  { kind: 'paraphrase', query: 'competitors cheaper subscriptions', target: 15 },
  { kind: 'paraphrase', query: 'davids colour blindness and chart colours', target: 16 },
  { kind: 'paraphrase', query: 'sofias move to amsterdam designers', target: 18 },
  { kind: 'paraphrase', query: 'who approves contracts over fifty thousand', target: 23 },
  { kind: 'paraphrase', query: 'mateo vegetarian diet mushroom', target: 24 },
  { kind: 'paraphrase', query: 'ravi skiing accident wrists', target: 28 },
  { kind: 'paraphrase', query: 'languages chloe speak fluently', target: 30 },
  { kind: 'paraphrase', query: 'expense report submission deadline', target: 31 },
  { kind: 'paraphrase', query: 'bens commuting bike in the winters', target: 36 },
  // Mixed: some exact words, some other forms.
  { kind: 'mixed', query: 'onboarding security trainings', target: 17 },
  { kind: 'mixed', query: 'annual company parties botanical', target: 21 },
  { kind: 'mixed', query: 'grace mobile app releases', target: 22 },
  { kind: 'mixed', query: 'hannah birthday in july', target: 26 },
  { kind: 'mixed', query: 'marketing newsletters schedule', target: 27 },
  { kind: 'mixed', query: 'data retention of logs in months', target: 33 },
  { kind: 'mixed', query: 'sales forecasts growth assumption', target: 35 },
  { kind: 'mixed', query: 'elena thesis about coral reefs', target: 38 },
  { kind: 'mixed', query: 'ordering new laptop hardware', target: 39 },
  { kind: 'mixed', query: 'yusuf fasts and skips lunches', target: 40 },
  { kind: 'mixed', query: 'support hotline staffing hours', target: 41 },
  { kind: 'mixed', query: 'ingrid chess ratings', target: 42 },
  { kind: 'mixed', query: 'carlos allergy to cats sneezing', target: 44 },
  { kind: 'mixed', query: 'research grants application deadlines', target: 45 },
  { kind: 'mixed', query: 'mia bird photography lenses', target: 46 },
  { kind: 'mixed', query: 'akira retirement in the countryside', target: 48 },
];

const PEOPLE = ['Anna', 'Bruno', 'Clara', 'Diego', 'Emma', 'Felix', 'Gina', 'Hugo', 'Iris', 'Jakob', 'Kira', 'Leo', 'Marta', 'Nils', 'Olga', 'Pablo', 'Rosa'];
const DISTRACTOR_FACTS = [
  'asked about the travel policy for long flights',
  'booked the conference room for a budget meeting',
  'prefers tea over coffee in the morning',
  'reported that the office printer is out of paper',
  'is planning a trip to Berlin in the spring',
  'updated the password of the shared account',
  'wants the newsletter to include more charts',
  'mentioned a restaurant near the station that serves pasta',
  'is responsible for the support plan of a small customer',
  'will present the sales numbers at the next team meeting',
];

/** 17 people × 10 facts: everyday memories that share vocabulary with the targets without answering the queries. */
export const DISTRACTORS: readonly string[] = PEOPLE.flatMap((person) => DISTRACTOR_FACTS.map((fact) => `${person} ${fact}`));
