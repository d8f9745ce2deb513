/**
 * What the scripted personas know about moods: the words that signal one, the palette it
 * paints with, and the lines, scenes, sparks and story beats they write in it.
 */
export interface Mood {
  name: string;
  signals: string[];
  palette: string[];
  paletteWords: string;
  images: string[];
  verse: string[];
  chorus: string[];
  scenes: string[];
  light: string[];
  sparks: string[];
  beats: { opening: string[]; turn: string[]; ending: string[] };
}

export const MOODS: Mood[] = [
  {
    name: "melancholic",
    signals: [
      "rain",
      "grey",
      "gray",
      "alone",
      "window",
      "miss",
      "longing",
      "tears",
      "fog",
      "winter",
      "goodbye",
      "lonely",
      "night",
      "leaving",
    ],
    palette: ["#1c3d5a", "#4a6fa5", "#9fb8d6", "#d0ebff"],
    paletteWords: "deep navy, slate blue, rain-washed grey and one warm lamp",
    images: ["rain", "window", "streetlights", "umbrella", "puddles", "the last bus", "a cold cup of tea", "an empty chair"],
    verse: [
      "Rain taps the glass like it knows my name",
      "Streetlights blur into a slower flame",
      "Your coat still hangs where the shadows fall",
      "I count the drops instead of the calls",
      "The kettle sighs and the window weeps",
      "Somewhere a promise is losing sleep",
      "The last bus hums a song we used to know",
      "Puddles hold the city upside down and slow",
    ],
    chorus: [
      "So let it rain, let it wash the night",
      "I'll keep the window and the lamp alight",
      "Every drop a word I didn't say",
      "Let it rain until it finds its way",
    ],
    scenes: [
      "A narrow room at night: rain streaks the tall window and the city outside melts into smears of gold and blue",
      "A bus stop under one flickering streetlight, an umbrella left open on the bench, puddles mirroring the sky",
      "A kitchen table by the window, a cold cup of tea, rain drawing slow rivers down the glass",
    ],
    light: ["a single warm lamp against cold blue rain", "streetlight glow bleeding through wet glass", "the grey hour just before dawn"],
    sparks: [
      "A song sung to an empty chair",
      "The city as an umbrella nobody holds",
      "Rain as the only one who still knocks",
      "A voicemail left in the sound of rain",
      "Windows as pages of a diary",
    ],
    beats: {
      opening: ["On the night it would not stop raining, Mara left the lamp on for someone who had stopped coming home."],
      turn: ["At midnight a knock came — only the rain, she told herself, until a second knock answered the first."],
      ending: ["By morning the window was clear, and for the first time the empty chair held a coat that was not his."],
    },
  },
  {
    name: "uplifting",
    signals: ["sun", "summer", "dance", "morning", "joy", "bright", "spring", "hope", "golden", "celebrate", "light"],
    palette: ["#ffd43b", "#ff922b", "#fff3bf", "#ffa94d"],
    paletteWords: "sunflower yellow, tangerine and warm cream",
    images: [
      "sunrise",
      "open windows",
      "bicycles",
      "a field of sunflowers",
      "kites",
      "the first warm day",
      "a marching band",
      "paper lanterns",
    ],
    verse: [
      "Morning spills like honey through the blinds",
      "Every door I closed is open wide",
      "Bicycles are singing down the hill",
      "The sunflowers lean in like they still",
      "Kites are writing names across the blue",
      "I found a summer I can walk into",
    ],
    chorus: [
      "Turn it up, let the daylight in",
      "Every ending's where the songs begin",
      "Hold on tight, we're running with the sun",
      "This is the morning, this is everyone",
    ],
    scenes: [
      "A hillside at sunrise, bicycles racing down a road lined with sunflowers, kites scattered across a wide blue sky",
      "An open window on the first warm day, curtains lifting, a table set with oranges and bright ceramics",
    ],
    light: ["low golden sunrise", "midday light bouncing off white walls", "late sun through a row of open doors"],
    sparks: ["A festival that begins by accident", "Sunlight as a second chance", "A town that dances when the clocks go forward"],
    beats: {
      opening: ["Theo opened every window in the house the morning the letter came."],
      turn: ["By noon the whole street had joined him, music spilling from doors nobody remembered unlocking."],
      ending: ["At sunset they read the letter aloud together: it only said, come outside."],
    },
  },
  {
    name: "serene",
    signals: ["ocean", "sea", "wave", "lake", "calm", "dawn", "lighthouse", "shore", "breeze", "quiet", "tide", "peace"],
    palette: ["#0b7285", "#3bc9db", "#c5f6fa", "#e3fafc"],
    paletteWords: "deep teal, seafoam and pale morning sky",
    images: ["the tide", "a lighthouse", "salt wind", "driftwood", "gulls", "a quiet harbour", "sea glass", "a rowing boat"],
    verse: [
      "The tide keeps time the way a heartbeat would",
      "The lighthouse hums the way I wish I could",
      "Driftwood remembers every storm it crossed",
      "The harbour keeps whatever we have lost",
      "Salt wind folds the morning into blue",
      "The gulls write slow white circles over you",
    ],
    chorus: [
      "Stay with the sea, stay with the slow",
      "Let the water know what we don't know",
      "Every wave comes back to shore",
      "Every wave comes back once more",
    ],
    scenes: [
      "A lighthouse at dawn above a calm sea, its beam fading as the sky turns from teal to pearl, gulls circling",
      "A quiet harbour with driftwood on the sand and boats resting on still water under a pale sky",
    ],
    light: ["soft dawn light over still water", "the last sweep of the lighthouse beam at sunrise", "pale haze lifting off the bay"],
    sparks: ["A lighthouse that keeps a diary", "The tide as a patient letter-writer", "A harbour for lost sounds"],
    beats: {
      opening: ["Every morning the keeper wrote down what the sea returned: a shoe, a bottle, once a violin."],
      turn: ["One dawn the tide brought back the keeper's own letter, unopened, from thirty years before."],
      ending: ["He finally read it aloud to the gulls, and the lighthouse, for once, stayed dark until noon."],
    },
  },
  {
    name: "electric",
    signals: ["city", "neon", "electric", "train", "midnight", "street", "rush", "club", "traffic", "skyline", "metro"],
    palette: ["#5f3dc4", "#d6336c", "#845ef7", "#f3d9fa"],
    paletteWords: "ultraviolet, hot pink and neon lilac",
    images: [
      "neon signs",
      "the midnight train",
      "taxi lights",
      "rooftops",
      "a crowded crosswalk",
      "the skyline",
      "the subway stairs",
      "a jukebox",
    ],
    verse: [
      "Neon letters flicker out your name",
      "The midnight train is never quite the same",
      "Taxi lights are running through my veins",
      "Rooftops humming under metro trains",
      "The crosswalk counts us down from ten",
      "We lose the city and we find it again",
    ],
    chorus: [
      "Light it up, the skyline's ours tonight",
      "Every window is a satellite",
      "Don't slow down, the city's calling out",
      "This is what the midnight's all about",
    ],
    scenes: [
      "A rain-slick avenue at midnight, neon signs in pink and violet reflected in every puddle, a train crossing overhead",
      "A rooftop above the skyline, antennae and water towers silhouetted against a violet glow",
    ],
    light: ["neon reflected in wet asphalt", "violet skyline glow", "headlights sweeping across a wall"],
    sparks: ["A city that dreams in traffic lights", "Strangers synchronised by a crosswalk", "The last train as a confession booth"],
    beats: {
      opening: ["Jun worked the night desk at the station and knew every passenger of the 00:47 by their shoes."],
      turn: ["One night the train arrived empty except for a note on seat 12 addressed to him."],
      ending: ["He took the 00:47 to the end of the line for the first time, and the city lit up behind him."],
    },
  },
  {
    name: "earthy",
    signals: ["forest", "tree", "mountain", "home", "earth", "garden", "roots", "village", "field", "harvest", "river"],
    palette: ["#2b8a3e", "#8ce99a", "#d8f5a2", "#5c940d"],
    paletteWords: "moss green, young leaf and ripe wheat",
    images: ["old oaks", "a garden gate", "the river path", "roots", "woodsmoke", "the kitchen garden", "a stone wall", "the apple tree"],
    verse: [
      "The garden gate still creaks the way it did",
      "Old oaks are keeping everything we hid",
      "The river path remembers how we ran",
      "Woodsmoke writes the evening on our hands",
      "Roots go deeper than the roads we took",
      "Home is where the seasons leave a book",
    ],
    chorus: [
      "Carry me home by the river road",
      "Let the old trees carry half the load",
      "Where the roots go, that is where I'll be",
      "Home is growing wild inside of me",
    ],
    scenes: [
      "A stone cottage at the edge of a forest, woodsmoke rising, a river path winding through tall grass toward old oaks",
      "A kitchen garden at golden hour, a wooden gate half open, bean poles and sunflowers leaning toward the light",
    ],
    light: ["late afternoon sun through leaves", "green shade with flecks of gold", "first light on a frosted field"],
    sparks: ["A tree that keeps the village's secrets", "Leaving home as planting a seed", "A map drawn in roots"],
    beats: {
      opening: ["When Ada left the village she took one acorn from the old oak, the way her grandmother had."],
      turn: ["Years later, in a city with no gardens, she found the acorn had split open in her coat pocket."],
      ending: ["She planted it on a rooftop, and every spring after, the village came to visit her."],
    },
  },
];

const DEFAULT_MOOD = MOODS[0]!;

export function findMood(name: string | undefined | null): Mood | undefined {
  if (!name) return undefined;
  const lower = name.toLowerCase();
  return MOODS.find((mood) => lower.includes(mood.name));
}

/** The mood whose signal words appear most often in the text; ties keep the earlier mood. */
export function detectMood(text: string): { mood: Mood; hits: number } {
  const lower = text.toLowerCase();
  let best = { mood: DEFAULT_MOOD, hits: 0 };
  for (const mood of MOODS) {
    const hits = mood.signals.reduce((count, word) => count + (lower.match(new RegExp(`\\b${word}`, "g"))?.length ?? 0), 0);
    if (hits > best.hits) best = { mood, hits };
  }
  return best;
}

/** The mood's images that the text actually mentions, so work can echo what it answers. */
export function imagesIn(text: string, mood: Mood): string[] {
  const lower = text.toLowerCase();
  return mood.images.filter((image) => lower.includes(image.split(" ").pop()!.toLowerCase()));
}

/** A word with its indefinite article: "melancholic" → "a melancholic", "electric" → "an electric". */
export function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? "an" : "a"} ${word}`;
}

const NAMES = ["Mara", "Jun", "Teo", "Lina", "Ravi", "Odile", "Sam", "Noor"];

/** Every name a story beat may give its character: the generated beats' and the moods' own. */
const STORY_NAMES = [...NAMES, "Theo", "Ada"];
const NAMED = new RegExp(`\\b(?:${STORY_NAMES.join("|")})\\b`, "g");

/**
 * The one name a room's story goes by: the name its stories on the canvas already use, else one
 * the room's subject picks (the same every run), so the character is not renamed mid-story.
 */
export function protagonistOf(storyTexts: string[], subject: string): string {
  for (const text of storyTexts) {
    // A piece's title says whom it answers ("As Ada asked — …"): that is a person, not the character.
    const named = text
      .split("\n")
      .filter((line) => !/^(As .+ asked|With .+ help) —/.test(line))
      .join("\n")
      .match(NAMED)?.[0];
    if (named) return named;
  }
  let hash = 0;
  for (const char of subject) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return NAMES[hash % NAMES.length]!;
}

/** A beat told about `name`: whatever name it was written with gives way to the story's own. */
export function castAs(beat: string, name: string): string {
  return beat.replace(NAMED, name);
}

/** An image with its article: "window" → "the window"; "an empty chair" and "my grandmother's kitchen" stay as they are. */
function the(image: string): string {
  return /^(a|an|the|my|your|his|her|our|their|[a-z]+'s) /i.test(image) ? image : `the ${image}`;
}

function cap(text: string): string {
  return text ? text[0]!.toUpperCase() + text.slice(1) : text;
}

/**
 * Every form made with every image, in an order where neighbours differ in both form and
 * image: the items one run takes together (a verse's lines, three sparks) neither share a
 * form nor dwell on one image.
 */
function woven<F>(forms: F[], images: string[], make: (form: F, image: string, index: number) => string): string[] {
  const made: string[] = [];
  for (let shift = 0; shift < images.length; shift++) {
    forms.forEach((form, index) => {
      made.push(make(form, images[(index + shift) % images.length]!, made.length));
    });
  }
  return made;
}

// Forms have the image as their object, so they read right for "the rain" and "the puddles" alike.
const VERSE_FORMS = [
  (image: string) => `I left a light on by ${the(image)}`,
  (image: string) => `Nobody answers me but ${the(image)}`,
  (image: string) => `Tonight it's only me and ${the(image)}`,
  (image: string) => `I wrote your name beside ${the(image)}`,
  (image: string) => `Every road runs back to ${the(image)}`,
  (image: string) => `I keep my quiet promises with ${the(image)}`,
  (image: string) => `You said you'd meet me by ${the(image)}`,
  (image: string) => `I hum the old tune to ${the(image)}`,
  (image: string) => `Half of me is waiting at ${the(image)}`,
  (image: string) => `I keep on looking past ${the(image)}`,
  (image: string) => `Let me stay a little longer with ${the(image)}`,
  (image: string) => `We were younger once beside ${the(image)}`,
  (image: string) => `I can still hear you in ${the(image)}`,
];

const CHORUS_FORMS = [
  (image: string) => `So sing it to ${the(image)}, sing it low`,
  (image: string) => `Oh, ${the(image)}, don't let me go`,
  (image: string) => `Carry me home past ${the(image)}`,
  (image: string) => `All I need tonight is ${the(image)}`,
  (image: string) => `Hold on, hold on to ${the(image)}`,
  (image: string) => `Say it again to ${the(image)}`,
  (image: string) => `Every time I turn, there's ${the(image)}`,
  (image: string) => `Don't wake me up from ${the(image)}`,
  (image: string) => `We'll meet again at ${the(image)}`,
  (image: string) => `Let it all come back to ${the(image)}`,
  (image: string) => `I'm still singing for ${the(image)}`,
  (image: string) => `Take me back, take me to ${the(image)}`,
  (image: string) => `Stay with me by ${the(image)}`,
];

const SPARK_FORMS = [
  (image: string) => `A song sung to ${the(image)}`,
  (image: string) => `A letter left under ${the(image)}`,
  (image: string) => `The memory kept in ${the(image)}`,
  (image: string) => `${cap(the(image))}, seen from the last train home`,
  (image: string) => `A chorus that starts at ${the(image)}`,
  (image: string) => `Two strangers sharing ${the(image)}`,
  (image: string) => `Everything ${the(image)} heard last night`,
  (image: string) => `What ${the(image)} would say, given a voice`,
  (image: string) => `A map drawn around ${the(image)}`,
  (image: string) => `A promise made in front of ${the(image)}`,
  (image: string) => `A photograph of ${the(image)} nobody remembers taking`,
  (image: string) => `A secret hidden behind ${the(image)}`,
  (image: string) => `A dance that begins at ${the(image)}`,
];

const SCENE_FORMS = [
  (a: string, b: string) => `${cap(the(a))} in the foreground, ${the(b)} just behind it`,
  (a: string, b: string) => `A wide view: ${the(a)} on the left, ${the(b)} on the right, nobody in between`,
  (a: string, b: string) => `Close up on ${the(a)}, with ${the(b)} out of focus`,
];

const LIGHT_FORMS = [
  (light: string, image: string) => `${light}, caught on ${the(image)}`,
  (light: string, image: string) => `${light}, falling across ${the(image)}`,
];

const COLOUR_FORMS = [
  (a: string, b: string, image: string) => `${cap(a)} on ${the(image)}, ${b} around it`,
  (a: string, b: string, image: string) => `${cap(a)} where ${the(image)} catches the light, ${b} everywhere else`,
];

const BEAT_FORMS = {
  opening: [
    (name: string, image: string) => `${name} kept watch over ${the(image)} for a reason nobody asked about.`,
    (name: string, image: string) => `Every day ${name} passed ${the(image)} and pretended not to look.`,
    (name: string, image: string) => `${name} had a habit of talking to ${the(image)} when no one was listening.`,
  ],
  turn: [
    (name: string, image: string, other: string) => `Then ${name} came back to find ${the(other)} where ${the(image)} had been.`,
    (name: string, image: string) => `One evening ${the(image)} gave ${name} a sign nobody else could read.`,
    (name: string, image: string, other: string) => `${name} followed ${the(image)} further than ever, all the way to ${the(other)}.`,
  ],
  ending: [
    (name: string, image: string, other: string) => `In the end ${name} let ${the(image)} go, and kept ${the(other)} instead.`,
    (name: string, _image: string, other: string) =>
      `${name} left ${the(other)} for whoever came next, and walked on without looking back.`,
    (name: string, image: string) => `At last ${name} understood what ${the(image)} had been saying all along.`,
  ],
};

/** Pairs of a mood's images, in a fixed order: the raw material of generated scenes. */
function pairs(mood: Mood): [string, string][] {
  return mood.images.flatMap((a, index) => mood.images.filter((_, other) => other !== index).map((b) => [a, b] as [string, string]));
}

/** The colours a mood's palette is named with: "deep navy, slate blue and one warm lamp" → three. */
function colourWords(mood: Mood): string[] {
  return mood.paletteWords
    .split(/,\s*|\s+and\s+/)
    .map((word) => word.trim())
    .filter(Boolean);
}

// Each pool holds the mood's own lines first, then lines made from its images: enough that the
// runs of ten minutes of watching each take their own share (see `fresh` in plan.ts).

/** Verse lines: the mood's own, then one of each form for each of its images. */
export function versesOf(mood: Mood): string[] {
  return [...new Set([...mood.verse, ...woven(VERSE_FORMS, mood.images, (form, image) => form(image))])];
}

/** Chorus lines: the mood's own, then one of each form for each of its images. */
export function chorusesOf(mood: Mood): string[] {
  return [...new Set([...mood.chorus, ...woven(CHORUS_FORMS, mood.images, (form, image) => form(image))])];
}

/** Sparks: the mood's own, then more made from its images. */
export function sparksOf(mood: Mood): string[] {
  return [...new Set([...mood.sparks, ...woven(SPARK_FORMS, mood.images, (form, image) => form(image))])];
}

/** Scenes: the mood's own, then compositions of two of its images. */
export function scenesOf(mood: Mood): string[] {
  return [...new Set([...mood.scenes, ...pairs(mood).map(([a, b], index) => SCENE_FORMS[index % SCENE_FORMS.length]!(a, b))])];
}

/** Light: the mood's own, then each caught on, or falling across, one of its images. */
export function lightOf(mood: Mood): string[] {
  const made = mood.light.flatMap((light) => woven(LIGHT_FORMS, mood.images, (form, image) => form(light, image)));
  return [...new Set([...mood.light, ...made])];
}

/** Colour notes: two of the palette's colours, set on one of the mood's images. */
export function coloursOf(mood: Mood): string[] {
  const colours = colourWords(mood);
  // Every ordered pair of colours, neighbours leading with different ones.
  const shifts = colours.slice(1).map((_, index) => index + 1);
  const forms = COLOUR_FORMS.flatMap((form) =>
    shifts.flatMap((shift) => colours.map((a, index) => (image: string) => form(a, colours[(index + shift) % colours.length]!, image))),
  );
  return [...new Set(woven(forms, mood.images, (form, image) => form(image)))];
}

/** Story beats: the mood's own, then beats about someone and one of the mood's images. */
export function beatsOf(mood: Mood, part: "opening" | "turn" | "ending"): string[] {
  const forms = BEAT_FORMS[part];
  const made = woven(NAMES, mood.images, (name, image, index) => {
    const other = mood.images[(mood.images.indexOf(image) + 3) % mood.images.length]!;
    return forms[index % forms.length]!(name, image, other);
  });
  return [...new Set([...mood.beats[part], ...made])];
}
