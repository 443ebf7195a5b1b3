/*
 * WCAG 2.x contrast (https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio): the ratio of the lighter
 * colour's relative luminance plus 0.05 to the darker's. An accent colour is used for white text
 * on it (buttons) and as text on white (links): the two ratios are the same number, so one check
 * covers both.
 */

/** WCAG AA for normal text. */
export const MIN_ACCENT_CONTRAST = 4.5;

const channel = (value: number): number => {
  const c = value / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};

/** The relative luminance of `#RRGGBB`. */
export const relativeLuminance = (hex: string): number => {
  const [r, g, b] = [1, 3, 5].map((at) => channel(Number.parseInt(hex.slice(at, at + 2), 16))) as [
    number,
    number,
    number,
  ];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};

/** The contrast ratio of `#RRGGBB` against white (1 to 21). */
export const contrastWithWhite = (hex: string): number => 1.05 / (relativeLuminance(hex) + 0.05);
