/**
 * @module The example town `template: "smallville"`: a small college town with a cafe, a pub, a
 * park, a college and its dorm, shops, a town hall and the houses of 25 residents, written for
 * Simulacra. It borrows only the shape of the paper's sandbox (areas of a village, one paragraph
 * of seed phrases per resident) and its two scenarios: the cafe owner means to host a Valentine's
 * Day party at her cafe on February 14 from 5 to 7 pm, and a retired carpenter is running for
 * mayor. Places, people and wording are our own.
 * @see Generative Agents §5 (environment tree), §8 (diffusion, density, coordination); Park et al. 2023 §3, §7
 */
import {
  AgentId as AgentIdSchema,
  CreateAgentInput as CreateAgentSchema,
  Environment,
  type GameTime,
} from "../src/domain/mod.ts";
import type { Town } from "../src/app/mod.ts";

// ---------------------------------------------------------------------------------------------
// Places

interface RawObject {
  name: string;
  state?: string;
}

function thing(name: string, state = ""): RawObject {
  return { name, state };
}

function room(name: string, ...objects: RawObject[]) {
  return { name, objects };
}

/** A bedroom as every primary living quarter has one: bed, desk, closet, shelf. */
function bedroom(name: string, ...extra: RawObject[]) {
  return room(name, thing("bed"), thing("desk"), thing("closet"), thing("shelf"), ...extra);
}

function kitchen(name = "kitchen", ...extra: RawObject[]) {
  return room(
    name,
    thing("stove", "off"),
    thing("refrigerator", "stocked"),
    thing("sink"),
    thing("kitchen table"),
    ...extra,
  );
}

function bathroom(name = "bathroom") {
  return room(name, thing("shower", "off"), thing("sink"), thing("toilet"), thing("mirror"));
}

const CAFE = "Marigold Cafe";
const PUB = "The Copper Kettle";
const PARK = "Willow Green Park";
const COLLEGE = "Ashford College";
const LIBRARY = "Ashford College Library";
const SCIENCE = "Ashford Science Building";
const MUSIC = "Ashford Music Hall";
const DORM = "Ashford College Dorm";
const MARKET = "Fernbrook Market and Pharmacy";
const SUPPLY = "Holloway Supply Store";
const TOWN_HALL = "Town Hall";
const OKAFOR = "Okafor family house";
const BERGSTROM = "Bergstrom house";
const MOREAU = "Moreau house";
const SORENSEN = "Sorensen house";
const DELGADO = "Delgado house";
const LUCIA_FLAT = "Lucia Ferreira's apartment";
const SOFIA_FLAT = "Sofia Marchetti's apartment";
const DECLAN_FLAT = "Declan Murphy's apartment";
const PRIYA_FLAT = "Priya Raman's apartment";
const LOFTS = "Lantern Row Lofts";
const PRICE = "Price cottage";
const INN = "Elm Street Inn";

// The cafe comes first: it is the first place people without another plan think of, which
// makes it the town's meeting point (and the party's word-of-mouth hub).
const AREAS = [
  {
    name: CAFE,
    common: true,
    subAreas: [
      room(
        "cafe",
        thing("counter"),
        thing("coffee machine", "idle"),
        thing("pastry case", "stocked with croissants and scones"),
        thing("customer tables"),
        thing("window seat"),
      ),
      kitchen("cafe kitchen", thing("oven", "off")),
      room("storeroom", thing("supply shelves"), thing("box of decorations", "closed")),
    ],
  },
  {
    name: PUB,
    common: true,
    subAreas: [
      room(
        "taproom",
        thing("bar counter"),
        thing("beer taps"),
        thing("booth tables"),
        thing("dartboard"),
        thing("upright piano", "closed"),
      ),
      room("pub kitchen", thing("fryer", "off"), thing("sink")),
    ],
  },
  {
    name: PARK,
    common: true,
    subAreas: [
      room("lawn", thing("park bench"), thing("picnic table"), thing("chess table")),
      room("duck pond", thing("footbridge"), thing("pond", "calm")),
      room(
        "community garden",
        thing("raised beds", "freshly weeded"),
        thing("tool shed", "locked"),
        thing("compost bin"),
      ),
    ],
  },
  {
    name: COLLEGE,
    common: true,
    subAreas: [
      room("lecture hall", thing("lectern"), thing("chalkboard", "clean"), thing("rows of seats")),
      room("seminar room", thing("round table"), thing("projector", "off")),
      room("faculty offices", thing("office desk"), thing("filing cabinet")),
    ],
  },
  {
    name: LIBRARY,
    subAreas: [
      room(
        "reading room",
        thing("bookshelves"),
        thing("study table"),
        thing("computer terminal", "on"),
      ),
      room("front desk", thing("circulation desk"), thing("returns cart", "half full")),
    ],
  },
  {
    name: SCIENCE,
    subAreas: [
      room("physics lab", thing("lab bench"), thing("oscilloscope", "off")),
      room("biology lab", thing("microscope", "covered"), thing("greenhouse shelf")),
    ],
  },
  {
    name: MUSIC,
    subAreas: [
      room("practice room", thing("grand piano", "closed"), thing("music stands")),
      room("recital hall", thing("stage"), thing("audience chairs")),
    ],
  },
  {
    name: DORM,
    subAreas: [
      bedroom("Nadia Haddad's room"),
      bedroom("Felix Brandt's room"),
      bedroom("Oskar Lindqvist's room", thing("keyboard", "off")),
      bedroom("Ayesha Rahman's room"),
      bedroom("Jun Park's room", thing("terrarium", "misted")),
      room(
        "common room",
        thing("sofa"),
        thing("television", "off"),
        thing("bulletin board", "covered in notes about lost keys and study groups"),
      ),
      kitchen("shared kitchen", thing("microwave", "idle")),
      // The paper found agents crowding a dorm bathroom: say plainly it holds one person.
      bathroom("one-person bathroom"),
    ],
  },
  {
    name: MARKET,
    common: true,
    subAreas: [
      room(
        "grocery aisles",
        thing("produce stand", "full of winter vegetables"),
        thing("shelves"),
        thing("cash register", "open"),
      ),
      room(
        "pharmacy counter",
        thing("prescription shelves"),
        thing("counter"),
        thing("blood pressure machine", "idle"),
      ),
      room("stock room", thing("delivery boxes", "unpacked")),
    ],
  },
  {
    name: SUPPLY,
    common: true,
    subAreas: [
      room(
        "sales floor",
        thing("paint aisle"),
        thing("tool wall"),
        thing("seed rack"),
        thing("cash register", "open"),
      ),
      room("workshop", thing("workbench"), thing("key-cutting machine", "idle")),
    ],
  },
  {
    name: TOWN_HALL,
    common: true,
    subAreas: [
      room("lobby", thing("notice board", "announces the spring clean-up day"), thing("bench")),
      room("council chamber", thing("podium"), thing("rows of chairs")),
      room("clerk's office", thing("desk"), thing("filing cabinet"), thing("computer", "on")),
      room("meeting room", thing("long table"), thing("whiteboard", "blank")),
    ],
  },
  {
    name: OKAFOR,
    subAreas: [
      bedroom("Daniel and Grace's bedroom"),
      bedroom("Tobi's bedroom", thing("electric piano", "off")),
      room("living room", thing("sofa"), thing("television", "off"), thing("bookshelf")),
      kitchen(),
      bathroom(),
      room("garden", thing("garden bench"), thing("bird feeder", "empty")),
    ],
  },
  {
    name: BERGSTROM,
    subAreas: [
      bedroom("bedroom"),
      room("study", thing("writing desk"), thing("campaign notes", "in a neat stack")),
      room("living room", thing("armchair"), thing("fireplace", "cold"), thing("radio", "off")),
      kitchen(),
      bathroom(),
      room("backyard", thing("woodworking bench"), thing("vegetable patch")),
    ],
  },
  {
    name: MOREAU,
    subAreas: [
      bedroom("bedroom"),
      room("living room", thing("sofa"), thing("record player", "off")),
      kitchen("kitchen", thing("mixer", "off"), thing("bread proofing basket")),
      bathroom(),
    ],
  },
  {
    name: SORENSEN,
    subAreas: [
      bedroom("bedroom"),
      room("living room", thing("recliner"), thing("television", "off")),
      kitchen(),
      bathroom(),
      room("garage", thing("pickup truck", "parked"), thing("tool chest")),
    ],
  },
  {
    name: DELGADO,
    subAreas: [
      bedroom("Rosa's bedroom"),
      bedroom("Miguel's bedroom", thing("chess set")),
      room("living room", thing("sofa"), thing("television", "off")),
      kitchen(),
      bathroom(),
      room("porch", thing("rocking chair")),
    ],
  },
  ...[LUCIA_FLAT, SOFIA_FLAT, DECLAN_FLAT, PRIYA_FLAT].map((name) => ({
    name,
    subAreas: [
      bedroom("bedroom"),
      kitchen("kitchenette"),
      bathroom(),
      room("balcony", thing("potted herbs")),
    ],
  })),
  {
    name: LOFTS,
    subAreas: [
      bedroom("Mateo Alvarez's loft", thing("easel", "holding an unfinished canvas")),
      bedroom("Ingrid Solberg's loft", thing("typewriter")),
      bedroom("Theo Nakamura's loft", thing("darkroom sink")),
      bedroom("Isaac Brennan's loft", thing("toolbox")),
      kitchen("shared kitchen"),
      bathroom("shared bathroom"),
      room("rooftop", thing("string lights", "off"), thing("deck chairs")),
    ],
  },
  {
    name: PRICE,
    subAreas: [
      bedroom("bedroom"),
      room("sitting room", thing("armchair"), thing("typewriter"), thing("cat basket")),
      kitchen(),
      bathroom(),
    ],
  },
  // Nobody lives here: a character imported into the town (a card) takes a guest room as home.
  {
    name: INN,
    subAreas: [
      room("front desk", thing("reception desk"), thing("guest book", "open")),
      bedroom("guest room"),
      room("breakfast room", thing("breakfast table"), thing("tea urn", "off")),
      bathroom("guest bathroom"),
    ],
  },
];

// ---------------------------------------------------------------------------------------------
// People

interface Resident {
  id: string;
  name: string;
  age: number;
  traits: string[];
  home: string;
  workplace?: string;
  /** Seed phrases; joined with semicolons into the description. */
  seeds: string[];
}

const RESIDENTS: Resident[] = [
  {
    id: "lucia",
    name: "Lucia Ferreira",
    age: 34,
    traits: ["warm", "organized", "sociable"],
    home: LUCIA_FLAT,
    workplace: CAFE,
    seeds: [
      "Lucia Ferreira owns Marigold Cafe and likes to know every regular by name",
      "Lucia Ferreira opens the cafe at eight every morning and closes it at eight at night",
      "Lucia Ferreira is planning to host a Valentine's Day party at Marigold Cafe on February 14 from 5 pm to 7 pm, and she wants to invite as many friends and customers as she can",
      "Lucia Ferreira employs Sofia Marchetti as her barista and trusts her completely",
      "Camille Moreau bakes the pastries Lucia Ferreira sells at the cafe",
      "Lucia Ferreira counts Nadia Haddad, a student who studies at the cafe most afternoons, among her closest friends",
      "Lucia Ferreira lives in an apartment on Elm Street next door to Declan Murphy, who runs the pub and teases her about their friendly rivalry",
    ],
  },
  {
    id: "sofia",
    name: "Sofia Marchetti",
    age: 26,
    traits: ["cheerful", "quick", "curious"],
    home: SOFIA_FLAT,
    workplace: CAFE,
    seeds: [
      "Sofia Marchetti is a barista at Marigold Cafe who is proud of her latte art",
      "Sofia Marchetti works for Lucia Ferreira and thinks of her as an older sister",
      "Sofia Marchetti is saving money to open a small bakery of her own one day",
      "Sofia Marchetti is learning to laminate croissant dough from Camille Moreau",
      "Sofia Marchetti takes evening pottery lessons from Mateo Alvarez",
      "Sofia Marchetti lives in an apartment on Elm Street, across the hall from Priya Raman",
    ],
  },
  {
    id: "nadia",
    name: "Nadia Haddad",
    age: 21,
    traits: ["bright", "shy", "loyal"],
    home: DORM,
    workplace: SCIENCE,
    seeds: [
      "Nadia Haddad is a physics student at Ashford College who spends her days in the physics lab of the Ashford Science Building and lives in the college dorm",
      "Nadia Haddad studies at Marigold Cafe most afternoons and is close friends with its owner, Lucia Ferreira",
      "Nadia Haddad has a secret crush on her classmate Felix Brandt and has never told anyone",
      "Nadia Haddad shares the dorm with Felix Brandt, Oskar Lindqvist, Ayesha Rahman and Jun Park",
      "Nadia Haddad is preparing for a hard exam on electromagnetism at the end of the month",
      "Nadia Haddad admires Professor Grace Okafor, who once helped her choose her courses",
    ],
  },
  {
    id: "felix",
    name: "Felix Brandt",
    age: 20,
    traits: ["thoughtful", "earnest", "absent-minded"],
    home: DORM,
    workplace: COLLEGE,
    seeds: [
      "Felix Brandt is an economics student at Ashford College writing a paper about rising rents in small towns",
      "Felix Brandt lives in the college dorm and often studies in the college library late into the evening",
      "Felix Brandt considers Nadia Haddad a good friend from physics lectures and likes her company",
      "Felix Brandt takes Professor Grace Okafor's seminar on community life and finds it inspiring",
      "Felix Brandt plans to interview Hank Sorensen about how shop rents have changed in town",
    ],
  },
  {
    id: "oskar",
    name: "Oskar Lindqvist",
    age: 22,
    traits: ["dreamy", "precise", "kind"],
    home: DORM,
    workplace: MUSIC,
    seeds: [
      "Oskar Lindqvist is a composition student at Ashford College writing a piece for string quartet built on number patterns",
      "Oskar Lindqvist practises on the grand piano at Ashford Music Hall every morning",
      "Oskar Lindqvist and Tobi Okafor often play duets in the practice room and are good friends",
      "Oskar Lindqvist lives in the college dorm with Nadia Haddad, Felix Brandt, Ayesha Rahman and Jun Park, and hums while he cooks in the shared kitchen",
      "Oskar Lindqvist sometimes plays the piano at The Copper Kettle for free drinks from Declan Murphy",
    ],
  },
  {
    id: "ayesha",
    name: "Ayesha Rahman",
    age: 23,
    traits: ["sharp", "principled", "talkative"],
    home: DORM,
    workplace: COLLEGE,
    seeds: [
      "Ayesha Rahman is a philosophy student at Ashford College writing a thesis on fairness in small communities",
      "Ayesha Rahman lives in the college dorm and argues about ethics with anyone who will listen",
      "Ayesha Rahman is a teaching assistant for Professor Grace Okafor",
      "Ayesha Rahman helped the new first-year student Jun Park settle into the dorm",
      "Ayesha Rahman and Nadia Haddad cook dinner together in the dorm kitchen on Sundays",
      "Ayesha Rahman thinks Evelyn Price's town newsletter is the best thing to read on a Sunday",
    ],
  },
  {
    id: "jun",
    name: "Jun Park",
    age: 19,
    traits: ["quiet", "diligent", "gentle"],
    home: DORM,
    workplace: SCIENCE,
    seeds: [
      "Jun Park is a first-year biology student at Ashford College who works in the biology lab and keeps a terrarium of mosses in the dorm",
      "Jun Park is shy and has not yet made many friends at college",
      "Jun Park looks up to Ayesha Rahman, who helped him move into the dorm",
      "Jun Park finds his dormmate Nadia Haddad kind but has barely spoken to her",
      "Jun Park volunteers on Saturdays in the community garden run by Ruth Bergstrom",
    ],
  },
  {
    id: "walter",
    name: "Walter Bergstrom",
    age: 64,
    traits: ["steady", "stubborn", "neighbourly"],
    home: BERGSTROM,
    workplace: TOWN_HALL,
    seeds: [
      "Walter Bergstrom is a retired carpenter who has lived in Smallville all his life",
      "Walter Bergstrom is running for mayor of Smallville in the local election and wants to talk with as many neighbours as he can about fixing the roads and keeping the shops on Main Street open",
      "Walter Bergstrom works on his campaign in the meeting room at the Town Hall most days",
      "Walter Bergstrom has been married to Ruth Bergstrom for forty years",
      "Walter Bergstrom is old friends with Hank Sorensen from their years in the building trade",
      "Walter Bergstrom lives next door to the Okafor family and is fond of Daniel Okafor",
    ],
  },
  {
    id: "ruth",
    name: "Ruth Bergstrom",
    age: 62,
    traits: ["patient", "practical", "generous"],
    home: BERGSTROM,
    workplace: PARK,
    seeds: [
      "Ruth Bergstrom is a retired nurse who now looks after the community garden in Willow Green Park",
      "Ruth Bergstrom has been married to Walter Bergstrom for forty years and worries that he works too hard",
      "Ruth Bergstrom teaches Jun Park how to grow vegetables on Saturdays",
      "Ruth Bergstrom swaps recipes with Camille Moreau",
      "Ruth Bergstrom thinks Daniel Okafor and his family next door are the best neighbours she has had",
    ],
  },
  {
    id: "daniel",
    name: "Daniel Okafor",
    age: 48,
    traits: ["helpful", "calm", "methodical"],
    home: OKAFOR,
    workplace: MARKET,
    seeds: [
      "Daniel Okafor is the pharmacist at Fernbrook Market and Pharmacy and loves making it easy for people to get their medicine",
      "Daniel Okafor is married to Grace Okafor, a professor at Ashford College, and their son Tobi Okafor studies music there",
      "Daniel Okafor and Victor Moreau work together at the market and like to talk about town politics over lunch",
      "Daniel Okafor lives next door to Walter and Ruth Bergstrom and has known them for years",
      "Daniel Okafor has trained Rosa Delgado as a pharmacy technician and values her work",
      "Daniel Okafor has heard of the painter Mateo Alvarez but has never met him",
    ],
  },
  {
    id: "grace",
    name: "Grace Okafor",
    age: 46,
    traits: ["insightful", "warm", "busy"],
    home: OKAFOR,
    workplace: COLLEGE,
    seeds: [
      "Grace Okafor is a professor of sociology at Ashford College who studies how neighbours come to trust each other",
      "Grace Okafor is married to Daniel Okafor and is the mother of Tobi Okafor",
      "Grace Okafor teaches a seminar on community life that Felix Brandt and Ayesha Rahman attend",
      "Grace Okafor works with the librarian Priya Raman on a history of the town",
      "Grace Okafor worries that Tobi Okafor stays up too late composing",
    ],
  },
  {
    id: "tobi",
    name: "Tobi Okafor",
    age: 19,
    traits: ["creative", "restless", "funny"],
    home: OKAFOR,
    workplace: MUSIC,
    seeds: [
      "Tobi Okafor is a music student at Ashford College who writes songs on the electric piano in his bedroom",
      "Tobi Okafor lives with his parents, Daniel Okafor and Grace Okafor",
      "Tobi Okafor plays duets with his friend Oskar Lindqvist at Ashford Music Hall",
      "Tobi Okafor dreams of playing his own songs at The Copper Kettle one night",
    ],
  },
  {
    id: "victor",
    name: "Victor Moreau",
    age: 45,
    traits: ["talkative", "opinionated", "loyal"],
    home: MOREAU,
    workplace: MARKET,
    seeds: [
      "Victor Moreau manages the grocery side of Fernbrook Market and Pharmacy",
      "Victor Moreau is married to Camille Moreau, who bakes for Marigold Cafe",
      "Victor Moreau and Daniel Okafor are colleagues and friends who enjoy arguing about town politics",
      "Victor Moreau orders his tools and paint from Hank Sorensen",
      "Victor Moreau has an opinion on everything and shares it freely",
      "Victor Moreau still calls Evelyn Price, who taught him to read, his favourite teacher",
    ],
  },
  {
    id: "camille",
    name: "Camille Moreau",
    age: 43,
    traits: ["meticulous", "soft-spoken", "hardworking"],
    home: MOREAU,
    workplace: CAFE,
    seeds: [
      "Camille Moreau is a baker who starts before dawn in the kitchen of Marigold Cafe",
      "Camille Moreau is married to Victor Moreau and wishes he would listen more than he talks",
      "Camille Moreau has known Lucia Ferreira since Lucia opened the cafe",
      "Camille Moreau is teaching Sofia Marchetti how to laminate croissant dough",
      "Camille Moreau and Ruth Bergstrom trade recipes and garden herbs",
    ],
  },
  {
    id: "hank",
    name: "Hank Sorensen",
    age: 57,
    traits: ["gruff", "fair", "reliable"],
    home: SORENSEN,
    workplace: SUPPLY,
    seeds: [
      "Hank Sorensen owns Holloway Supply Store and can fix nearly anything",
      "Hank Sorensen is married to Marta Sorensen, the town clerk",
      "Hank Sorensen and Walter Bergstrom have been friends since they built houses together",
      "Hank Sorensen employs Isaac Brennan, a handyman he took under his wing",
      "Hank Sorensen counts Victor Moreau among his most talkative customers",
      "Hank Sorensen worries that online shops will put his store out of business",
    ],
  },
  {
    id: "marta",
    name: "Marta Sorensen",
    age: 55,
    traits: ["discreet", "exact", "dry-humoured"],
    home: SORENSEN,
    workplace: TOWN_HALL,
    seeds: [
      "Marta Sorensen is the town clerk and keeps the records at the Town Hall",
      "Marta Sorensen is married to Hank Sorensen",
      "Marta Sorensen believes a town clerk should keep her opinions to herself",
      "Marta Sorensen is organizing the spring clean-up day and needs volunteers",
      "Marta Sorensen enjoys Evelyn Price's newsletter but corrects its spelling",
    ],
  },
  {
    id: "declan",
    name: "Declan Murphy",
    age: 52,
    traits: ["jovial", "shrewd", "big-hearted"],
    home: DECLAN_FLAT,
    workplace: PUB,
    seeds: [
      "Declan Murphy owns The Copper Kettle, the town pub, and hosts a quiz night every Thursday",
      "Declan Murphy lives in an apartment on Elm Street next door to Lucia Ferreira and likes to tease her",
      "Declan Murphy employs the poet Ingrid Solberg behind the bar",
      "Declan Murphy lets Oskar Lindqvist play the pub piano in exchange for drinks",
      "Declan Murphy knows the gossip of the whole town but rarely repeats it",
    ],
  },
  {
    id: "ingrid",
    name: "Ingrid Solberg",
    age: 29,
    traits: ["wry", "observant", "independent"],
    home: LOFTS,
    workplace: PUB,
    seeds: [
      "Ingrid Solberg is a poet who tends the bar at The Copper Kettle in the afternoons and evenings",
      "Ingrid Solberg lives in Lantern Row Lofts with Mateo Alvarez, Theo Nakamura and Isaac Brennan",
      "Ingrid Solberg is writing a book of poems about the people who come into the pub",
      "Ingrid Solberg finds Declan Murphy a fair boss and a terrible singer",
    ],
  },
  {
    id: "mateo",
    name: "Mateo Alvarez",
    age: 31,
    traits: ["passionate", "moody", "generous"],
    home: LOFTS,
    workplace: LOFTS,
    seeds: [
      "Mateo Alvarez is a painter preparing his first solo exhibition and paints in his loft all day",
      "Mateo Alvarez gives pottery lessons in the evenings, and Sofia Marchetti is one of his students",
      "Mateo Alvarez shares Lantern Row Lofts with Ingrid Solberg, Theo Nakamura and Isaac Brennan",
      "Mateo Alvarez buys his canvas and paint at Holloway Supply Store",
      "Mateo Alvarez has no time for anything but his exhibition this month",
    ],
  },
  {
    id: "theo",
    name: "Theo Nakamura",
    age: 27,
    traits: ["adventurous", "easygoing", "attentive"],
    home: LOFTS,
    workplace: PARK,
    seeds: [
      "Theo Nakamura is a photographer making a series of portraits of people in Willow Green Park",
      "Theo Nakamura lives in Lantern Row Lofts with Mateo Alvarez, Ingrid Solberg and Isaac Brennan, and develops film in his loft",
      "Theo Nakamura has not yet met Walter Bergstrom but would like to photograph him",
      "Theo Nakamura and Isaac Brennan go climbing together on weekends",
    ],
  },
  {
    id: "isaac",
    name: "Isaac Brennan",
    age: 33,
    traits: ["handy", "modest", "restless"],
    home: LOFTS,
    workplace: SUPPLY,
    seeds: [
      "Isaac Brennan is a handyman who works at Holloway Supply Store and does repairs around town",
      "Isaac Brennan is grateful to Hank Sorensen for giving him a job when he moved to town",
      "Isaac Brennan lives in Lantern Row Lofts with Mateo Alvarez, Ingrid Solberg and Theo Nakamura, and fixes whatever breaks there",
      "Isaac Brennan goes climbing with Theo Nakamura on weekends",
    ],
  },
  {
    id: "rosa",
    name: "Rosa Delgado",
    age: 38,
    traits: ["dependable", "brisk", "caring"],
    home: DELGADO,
    workplace: MARKET,
    seeds: [
      "Rosa Delgado is a pharmacy technician at Fernbrook Market and Pharmacy",
      "Rosa Delgado lives with her father, Miguel Delgado, and looks after him",
      "Rosa Delgado learned her trade from Daniel Okafor and respects him",
      "Rosa Delgado is studying at night to become a pharmacist herself",
    ],
  },
  {
    id: "miguel",
    name: "Miguel Delgado",
    age: 71,
    traits: ["witty", "proud", "sociable"],
    home: DELGADO,
    seeds: [
      "Miguel Delgado is a retired postman who knew every address in town",
      "Miguel Delgado lives with his daughter, Rosa Delgado",
      "Miguel Delgado plays chess at the chess table in Willow Green Park most afternoons",
      "Miguel Delgado and Evelyn Price have been friends for fifty years",
    ],
  },
  {
    id: "evelyn",
    name: "Evelyn Price",
    age: 70,
    traits: ["curious", "exacting", "kind"],
    home: PRICE,
    seeds: [
      "Evelyn Price is a retired schoolteacher who writes the town newsletter every week",
      "Evelyn Price lives alone in Price cottage with her old cat",
      "Evelyn Price taught half the adults in Smallville to read, Victor Moreau among them",
      "Evelyn Price and Miguel Delgado have been friends for fifty years",
    ],
  },
  {
    id: "priya",
    name: "Priya Raman",
    age: 35,
    traits: ["meticulous", "witty", "reserved"],
    home: PRIYA_FLAT,
    workplace: LIBRARY,
    seeds: [
      "Priya Raman is the librarian of the Ashford College Library",
      "Priya Raman is helping Professor Grace Okafor write a history of the town",
      "Priya Raman lives in an apartment on Elm Street across the hall from Sofia Marchetti",
      "Priya Raman runs a book club that meets on the first Friday of each month",
    ],
  },
];

/** The day the smallville clock starts: Monday, the day before Valentine's Day 2023. */
export const SMALLVILLE_START: GameTime = "2023-02-13T07:00:00" as GameTime;

/**
 * The smallville town: its environment (23 areas, 7 of them common, one an inn nobody lives in),
 * its 25 residents with homes, workplaces and relationships in their seed phrases, and the two
 * scenario facts with the party's place and time. Pure: the same value every call, validated by the schemas the
 * API uses.
 */
export function smallvilleTown(): Town {
  const environment = Environment.parse({ areas: AREAS });
  const agents = RESIDENTS.map((r) =>
    CreateAgentSchema.parse({
      id: r.id,
      name: r.name,
      age: r.age,
      traits: r.traits,
      home: r.home,
      workplace: r.workplace,
      description: r.seeds.join("; "),
    })
  );
  const id = (s: string) => AgentIdSchema.parse(s);
  return {
    name: "Smallville",
    startTime: SMALLVILLE_START,
    environment,
    agents,
    facts: [
      {
        id: "party",
        originator: id("lucia"),
        description: "Lucia Ferreira hosts a Valentine's Day party at Marigold Cafe",
        allOf: [/\bpart(?:y|ies)\b/i],
        anyOf: [/valentine/i, /\bmarigold\b/i, /\bcaf[eé]\b/i],
      },
      {
        id: "candidacy",
        originator: id("walter"),
        description: "Walter Bergstrom is running for mayor",
        allOf: [/\bmayor/i],
        anyOf: [/\brun(?:s|ning)?\b/i, /\bran\b/i, /\bcandida/i, /\bcampaign/i, /\belection/i],
      },
    ],
    party: {
      host: id("lucia"),
      area: CAFE,
      start: "2023-02-14T17:00:00" as GameTime,
      end: "2023-02-14T19:00:00" as GameTime,
    },
  };
}
