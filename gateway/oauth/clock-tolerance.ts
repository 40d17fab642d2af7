/** How far past its exp a token still verifies, for clocks that differ between machines. */
export const CLOCK_TOLERANCE_SECONDS = 30;
