// Time zones as the reference knows them: the IANA names it accepts (current and legacy) and each
// zone's UTC offset at an instant, from Intl. Each zone-year's offset changes are found once, by weekly
// probes and bisection, and kept (no zone changes its offset twice within a week); Intl's format() costs
// ~3 µs (luxon's formatToParts path ~13 µs). The only module state is bounded memo caches of pure
// functions: zone-years and Intl formatters (one per known zone).
import type { Millis } from "./model.ts";
import { BoundedMap } from "../lib/bounded-map.ts";

const SECOND = 1000,
  DAY = 86_400 * SECOND,
  WEEK = 7 * DAY;

// ---- Zone names ----------------------------------------------------------------------------
// Current IANA names (tzdata 2025b, backzone build) by area, and legacy names by the zone they map
// to: the `backward` links, plus 2024b's CET/EET/MET/WET/EST/MST/HST/EST5EDT… as the reference maps them.
const ZONES_BY_AREA: Readonly<Record<string, string>> = {
  Africa: `Abidjan Accra Addis_Ababa Algiers Asmara Bamako Bangui Banjul Bissau Blantyre Brazzaville Bujumbura Cairo
    Casablanca Ceuta Conakry Dakar Dar_es_Salaam Djibouti Douala El_Aaiun Freetown Gaborone Harare
    Johannesburg Juba Kampala Khartoum Kigali Kinshasa Lagos Libreville Lome Luanda Lubumbashi Lusaka Malabo
    Maputo Maseru Mbabane Mogadishu Monrovia Nairobi Ndjamena Niamey Nouakchott Ouagadougou Porto-Novo
    Sao_Tome Tripoli Tunis Windhoek`,
  America: `Adak Anchorage Anguilla Antigua Araguaina Argentina/Buenos_Aires Argentina/Catamarca Argentina/Cordoba
    Argentina/Jujuy Argentina/La_Rioja Argentina/Mendoza Argentina/Rio_Gallegos Argentina/Salta
    Argentina/San_Juan Argentina/San_Luis Argentina/Tucuman Argentina/Ushuaia Aruba Asuncion Atikokan Bahia
    Bahia_Banderas Barbados Belem Belize Blanc-Sablon Boa_Vista Bogota Boise Cambridge_Bay Campo_Grande Cancun
    Caracas Cayenne Cayman Chicago Chihuahua Ciudad_Juarez Costa_Rica Coyhaique Creston Cuiaba Curacao
    Danmarkshavn Dawson Dawson_Creek Denver Detroit Dominica Edmonton Eirunepe El_Salvador Fort_Nelson
    Fortaleza Glace_Bay Goose_Bay Grand_Turk Grenada Guadeloupe Guatemala Guayaquil Guyana Halifax Havana
    Hermosillo Indiana/Indianapolis Indiana/Knox Indiana/Marengo Indiana/Petersburg Indiana/Tell_City
    Indiana/Vevay Indiana/Vincennes Indiana/Winamac Inuvik Iqaluit Jamaica Juneau Kentucky/Louisville
    Kentucky/Monticello Kralendijk La_Paz Lima Los_Angeles Lower_Princes Maceio Managua Manaus Marigot
    Martinique Matamoros Mazatlan Menominee Merida Metlakatla Mexico_City Miquelon Moncton Monterrey
    Montevideo Montserrat Nassau New_York Nome Noronha North_Dakota/Beulah North_Dakota/Center
    North_Dakota/New_Salem Nuuk Ojinaga Panama Paramaribo Phoenix Port-au-Prince Port_of_Spain Porto_Velho
    Puerto_Rico Punta_Arenas Rankin_Inlet Recife Regina Resolute Rio_Branco Santarem Santiago Santo_Domingo
    Sao_Paulo Scoresbysund Sitka St_Barthelemy St_Johns St_Kitts St_Lucia St_Thomas St_Vincent Swift_Current
    Tegucigalpa Thule Tijuana Toronto Tortola Vancouver Whitehorse Winnipeg Yakutat`,
  Antarctica: "Casey Davis DumontDUrville Macquarie Mawson McMurdo Palmer Rothera Syowa Troll Vostok",
  Arctic: "Longyearbyen",
  Asia: `Aden Almaty Amman Anadyr Aqtau Aqtobe Ashgabat Atyrau Baghdad Bahrain Baku Bangkok Barnaul Beirut Bishkek
    Brunei Chita Colombo Damascus Dhaka Dili Dubai Dushanbe Famagusta Gaza Hebron Ho_Chi_Minh Hong_Kong Hovd
    Irkutsk Jakarta Jayapura Jerusalem Kabul Kamchatka Karachi Kathmandu Khandyga Kolkata Krasnoyarsk
    Kuala_Lumpur Kuching Kuwait Macau Magadan Makassar Manila Muscat Nicosia Novokuznetsk Novosibirsk Omsk
    Oral Phnom_Penh Pontianak Pyongyang Qatar Qostanay Qyzylorda Riyadh Sakhalin Samarkand Seoul Shanghai
    Singapore Srednekolymsk Taipei Tashkent Tbilisi Tehran Thimphu Tokyo Tomsk Ulaanbaatar Urumqi Ust-Nera
    Vientiane Vladivostok Yakutsk Yangon Yekaterinburg Yerevan`,
  Atlantic: "Azores Bermuda Canary Cape_Verde Faroe Madeira Reykjavik South_Georgia St_Helena Stanley",
  Australia: "Adelaide Brisbane Broken_Hill Darwin Eucla Hobart Lindeman Lord_Howe Melbourne Perth Sydney",
  Etc: `GMT GMT+1 GMT+10 GMT+11 GMT+12 GMT+2 GMT+3 GMT+4 GMT+5 GMT+6 GMT+7 GMT+8 GMT+9 GMT-1 GMT-10 GMT-11 GMT-12
    GMT-13 GMT-14 GMT-2 GMT-3 GMT-4 GMT-5 GMT-6 GMT-7 GMT-8 GMT-9 UTC`,
  Europe: `Amsterdam Andorra Astrakhan Athens Belgrade Berlin Bratislava Brussels Bucharest Budapest Busingen
    Chisinau Copenhagen Dublin Gibraltar Guernsey Helsinki Isle_of_Man Istanbul Jersey Kaliningrad Kirov Kyiv
    Lisbon Ljubljana London Luxembourg Madrid Malta Mariehamn Minsk Monaco Moscow Oslo Paris Podgorica Prague
    Riga Rome Samara San_Marino Sarajevo Saratov Simferopol Skopje Sofia Stockholm Tallinn Tirane Ulyanovsk
    Vaduz Vatican Vienna Vilnius Volgograd Warsaw Zagreb Zurich`,
  "": "GMT UTC",
  Indian: "Antananarivo Chagos Christmas Cocos Comoro Kerguelen Mahe Maldives Mauritius Mayotte Reunion",
  Pacific: `Apia Auckland Bougainville Chatham Chuuk Easter Efate Fakaofo Fiji Funafuti Galapagos Gambier Guadalcanal
    Guam Honolulu Kanton Kiritimati Kosrae Kwajalein Majuro Marquesas Midway Nauru Niue Norfolk Noumea
    Pago_Pago Palau Pitcairn Pohnpei Port_Moresby Rarotonga Saipan Tahiti Tarawa Tongatapu Wake Wallis`,
};
const LEGACY_BY_ZONE: Readonly<Record<string, string>> = {
  "Africa/Asmara": "Africa/Asmera",
  "Africa/Bamako": "Africa/Timbuktu",
  "Africa/Cairo": "Egypt",
  "Africa/Tripoli": "Libya",
  "America/Adak": "America/Atka US/Aleutian",
  "America/Anchorage": "US/Alaska",
  "America/Argentina/Buenos_Aires": "America/Buenos_Aires",
  "America/Argentina/Catamarca": "America/Argentina/ComodRivadavia America/Catamarca",
  "America/Argentina/Cordoba": "America/Cordoba America/Rosario",
  "America/Argentina/Jujuy": "America/Jujuy",
  "America/Argentina/Mendoza": "America/Mendoza",
  "America/Atikokan": "America/Coral_Harbour",
  "America/Chicago": "CST6CDT US/Central",
  "America/Denver": "America/Shiprock MST7MDT Navajo US/Mountain",
  "America/Detroit": "US/Michigan",
  "America/Edmonton": "America/Yellowknife Canada/Mountain",
  "America/Halifax": "Canada/Atlantic",
  "America/Havana": "Cuba",
  "America/Indiana/Indianapolis": "America/Fort_Wayne America/Indianapolis US/East-Indiana",
  "America/Indiana/Knox": "America/Knox_IN US/Indiana-Starke",
  "America/Iqaluit": "America/Pangnirtung",
  "America/Jamaica": "Jamaica",
  "America/Kentucky/Louisville": "America/Louisville",
  "America/Los_Angeles": "PST8PDT US/Pacific",
  "America/Manaus": "Brazil/West",
  "America/Mazatlan": "Mexico/BajaSur",
  "America/Mexico_City": "Mexico/General",
  "America/New_York": "EST5EDT US/Eastern",
  "America/Noronha": "Brazil/DeNoronha",
  "America/Nuuk": "America/Godthab",
  "America/Panama": "EST",
  "America/Phoenix": "MST US/Arizona",
  "America/Regina": "Canada/Saskatchewan",
  "America/Rio_Branco": "America/Porto_Acre Brazil/Acre",
  "America/Santiago": "Chile/Continental",
  "America/Sao_Paulo": "Brazil/East",
  "America/St_Johns": "Canada/Newfoundland",
  "America/St_Thomas": "America/Virgin",
  "America/Tijuana": "America/Ensenada America/Santa_Isabel Mexico/BajaNorte",
  "America/Toronto": "America/Montreal America/Nipigon America/Thunder_Bay Canada/Eastern",
  "America/Vancouver": "Canada/Pacific",
  "America/Whitehorse": "Canada/Yukon",
  "America/Winnipeg": "America/Rainy_River Canada/Central",
  "Antarctica/McMurdo": "Antarctica/South_Pole",
  "Arctic/Longyearbyen": "Atlantic/Jan_Mayen",
  "Asia/Ashgabat": "Asia/Ashkhabad",
  "Asia/Dhaka": "Asia/Dacca",
  "Asia/Ho_Chi_Minh": "Asia/Saigon",
  "Asia/Hong_Kong": "Hongkong",
  "Asia/Jerusalem": "Asia/Tel_Aviv Israel",
  "Asia/Kathmandu": "Asia/Katmandu",
  "Asia/Kolkata": "Asia/Calcutta",
  "Asia/Macau": "Asia/Macao",
  "Asia/Makassar": "Asia/Ujung_Pandang",
  "Asia/Nicosia": "Europe/Nicosia",
  "Asia/Seoul": "ROK",
  "Asia/Shanghai": "Asia/Chongqing Asia/Chungking Asia/Harbin PRC",
  "Asia/Singapore": "Singapore",
  "Asia/Taipei": "ROC",
  "Asia/Tehran": "Iran",
  "Asia/Thimphu": "Asia/Thimbu",
  "Asia/Tokyo": "Japan",
  "Asia/Ulaanbaatar": "Asia/Choibalsan Asia/Ulan_Bator",
  "Asia/Urumqi": "Asia/Kashgar",
  "Asia/Yangon": "Asia/Rangoon",
  "Atlantic/Faroe": "Atlantic/Faeroe",
  "Atlantic/Reykjavik": "Iceland",
  "Australia/Adelaide": "Australia/South",
  "Australia/Brisbane": "Australia/Queensland",
  "Australia/Broken_Hill": "Australia/Yancowinna",
  "Australia/Darwin": "Australia/North",
  "Australia/Hobart": "Australia/Currie Australia/Tasmania",
  "Australia/Lord_Howe": "Australia/LHI",
  "Australia/Melbourne": "Australia/Victoria",
  "Australia/Perth": "Australia/West",
  "Australia/Sydney": "Australia/ACT Australia/Canberra Australia/NSW",
  "Etc/GMT": "Etc/GMT+0 Etc/GMT-0 Etc/GMT0 Etc/Greenwich GMT+0 GMT-0 GMT0 Greenwich",
  "Etc/UTC": "Etc/UCT Etc/Universal Etc/Zulu UCT Universal Zulu",
  "Europe/Athens": "EET",
  "Europe/Brussels": "CET MET",
  "Europe/Chisinau": "Europe/Tiraspol",
  "Europe/Dublin": "Eire",
  "Europe/Istanbul": "Asia/Istanbul Turkey",
  "Europe/Kyiv": "Europe/Kiev Europe/Uzhgorod Europe/Zaporozhye",
  "Europe/Lisbon": "Portugal WET",
  "Europe/London": "Europe/Belfast GB GB-Eire",
  "Europe/Moscow": "W-SU",
  "Europe/Warsaw": "Poland",
  "Pacific/Auckland": "NZ",
  "Pacific/Chatham": "NZ-CHAT",
  "Pacific/Chuuk": "Pacific/Truk Pacific/Yap",
  "Pacific/Easter": "Chile/EasterIsland",
  "Pacific/Honolulu": "HST Pacific/Johnston US/Hawaii",
  "Pacific/Kanton": "Pacific/Enderbury",
  "Pacific/Kwajalein": "Kwajalein",
  "Pacific/Pago_Pago": "Pacific/Samoa US/Samoa",
  "Pacific/Pohnpei": "Pacific/Ponape",
};
const ZONES: ReadonlySet<string> = new Set(
  Object.entries(ZONES_BY_AREA).flatMap(([area, names]) => names.split(/\s+/).map((name) => (area === "" ? name : `${area}/${name}`))),
);
const LEGACY: ReadonlyMap<string, string> = new Map(
  Object.entries(LEGACY_BY_ZONE).flatMap(([zone, names]) => names.split(/\s+/).map((name) => [name, zone] as const)),
);

/** Returns the canonical IANA name for `name` (legacy names mapped, case-sensitive), or null when unknown. */
export function canonicalZone(name: string): string | null {
  if (typeof name !== "string") return null;
  const zone = LEGACY.get(name) ?? (ZONES.has(name) ? name : null);
  return zone !== null && formatterFor(zone) !== null ? zone : null; // null too if this runtime's ICU lacks it
}

// ---- Offsets -------------------------------------------------------------------------------
const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatterFor(zone: string): Intl.DateTimeFormat | null {
  let formatter = formatters.get(zone);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat("en-US", {
        timeZone: zone,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
      });
    } catch {
      formatter = null;
    }
    formatters.set(zone, formatter); // bounded: only names from ZONES get here
  }
  return formatter;
}

/** Returns the zone's UTC offset at `at` in ms, asking Intl (the slow path, ~3 µs). */
function probeOffset(zone: string, at: Millis): number {
  const formatter = formatterFor(zone);
  const match = formatter === null ? null : /(\d+)\/(\d+)\/(\d+),? (\d+):(\d+):(\d+)/.exec(formatter.format(at));
  if (match === null) return 0;
  const [, month, day, year, hour, minute, second] = match.map(Number);
  const at0 = Math.floor(at / SECOND) * SECOND;
  return Date.UTC(year, month - 1, day, hour % 24, minute, second) - at0;
}

type Segment = { readonly startAt: Millis; readonly offsetMs: number };
const zoneYears = new Map<string, BoundedMap<number, readonly Segment[]>>(); // keys: known zone names only
const YEARS_PER_ZONE = 256;

/** Returns the UTC year of `at` without allocating a Date. */
export function utcYear(at: Millis): number {
  const year = Math.floor(at / 31_556_952_000) + 1970; // mean Gregorian year, then correct by one
  return Date.UTC(year, 0, 1) > at ? year - 1 : Date.UTC(year + 1, 0, 1) <= at ? year + 1 : year;
}

// Returns the constant-offset stretches of one UTC year, the first starting on 1 January 00:00 UTC.
function segmentsOf(zone: string, year: number): readonly Segment[] {
  let years = zoneYears.get(zone);
  if (years === undefined) zoneYears.set(zone, (years = new BoundedMap(YEARS_PER_ZONE)));
  const known = years.get(year);
  if (known !== undefined) return known;
  const startAt = Date.UTC(year, 0, 1),
    lastAt = Date.UTC(year + 1, 0, 1) - SECOND;
  const segments: Segment[] = [{ startAt, offsetMs: probeOffset(zone, startAt) }];
  const fixed = zone === "UTC" || zone === "GMT" || zone.startsWith("Etc/");
  let lo = startAt,
    loOffset = segments[0].offsetMs,
    hi = fixed ? lastAt : Math.min(startAt + WEEK, lastAt);
  while (!fixed) {
    const hiOffset = probeOffset(zone, hi);
    if (hiOffset !== loOffset) {
      let a = lo,
        b = hi; // offset(a) = loOffset, offset(b) differs: bisect to the first second that differs
      while (b - a > SECOND) {
        const mid = a + Math.floor((b - a) / 2 / SECOND) * SECOND;
        if (probeOffset(zone, mid) === loOffset) a = mid;
        else b = mid;
      }
      lo = b;
      loOffset = probeOffset(zone, b);
      segments.push({ startAt: b, offsetMs: loOffset });
      continue; // look again at what is left of [b, hi]
    }
    if (hi >= lastAt) break;
    lo = hi;
    hi = Math.min(hi + WEEK, lastAt);
  }
  years.set(year, segments);
  return segments;
}

/** Returns the stretch of constant offset around `at`; it ends at a change or at the end of the UTC year. */
export function segmentAt(zone: string, at: Millis): { startAt: Millis; endAt: Millis; offsetMs: number } {
  const year = utcYear(at);
  const segments = segmentsOf(zone, year);
  let i = segments.length - 1;
  while (i > 0 && segments[i].startAt > at) i--;
  const endAt = i + 1 < segments.length ? segments[i + 1].startAt : Date.UTC(year + 1, 0, 1);
  return { startAt: segments[i].startAt, endAt, offsetMs: segments[i].offsetMs };
}

/** Returns the zone's UTC offset at `at`, in ms. */
export function offsetAt(zone: string, at: Millis): number {
  const segments = segmentsOf(zone, utcYear(at));
  let i = segments.length - 1;
  while (i > 0 && segments[i].startAt > at) i--;
  return segments[i].offsetMs;
}

/** Returns the instants whose wall-clock time in `zone` is `wall` (wall time written as UTC ms), earliest first: none in a spring gap, two in an autumn overlap. */
export function instantsAt(zone: string, wall: Millis): Millis[] {
  const found: Millis[] = [];
  for (const near of [wall - DAY, wall + DAY]) {
    // the offsets in force a day either side
    const at = wall - offsetAt(zone, near);
    if (at + offsetAt(zone, at) === wall && !found.includes(at)) found.push(at);
  }
  return found.sort((a, b) => a - b);
}

/** Returns the first existing wall time after the spring gap that `wall` falls in. */
export function gapEndWall(zone: string, wall: Millis): Millis {
  const past = segmentAt(zone, wall - offsetAt(zone, wall - DAY)); // the old offset puts `wall` past the change
  return Math.max(past.startAt + past.offsetMs, wall + SECOND);
}
