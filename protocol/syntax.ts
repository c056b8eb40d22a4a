/** Character sets of OAuth 2.0 parameters (RFC 6749 Appendix A). */

/** RFC 6749 §A.7: error_description = 1*( %x20-21 / %x23-5B / %x5D-7E ). */
export const ERROR_DESCRIPTION_FORMAT = /^[\x20-\x21\x23-\x5B\x5D-\x7E]*$/;

/** The characters error_description may not hold (the complement of §A.7's set). */
export const ERROR_DESCRIPTION_FORBIDDEN = /[^\x20-\x21\x23-\x5B\x5D-\x7E]/g;

/** RFC 6749 §A.8: error_uri = 1*( %x21 / %x23-5B / %x5D-7E ). */
export const ERROR_URI_FORMAT = /^[\x21\x23-\x5B\x5D-\x7E]*$/;

/** RFC 6749 §3.3, §A.4: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
export const SCOPE_TOKEN_FORMAT = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
