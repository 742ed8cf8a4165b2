// Instants and durations: epoch milliseconds (`...At`) and milliseconds (`...Ms`), and the units they are counted in.

export type Millis = number;

export const SECOND: Millis = 1000;
export const MINUTE: Millis = 60 * SECOND;
export const HOUR: Millis = 60 * MINUTE;
export const DAY: Millis = 24 * HOUR;
