/**
 * @module Short-lived tokens for `GET …/events?token=`, since a browser's `EventSource` cannot
 * send an Authorization header. A token is signed (HMAC-SHA256 under a key derived from the
 * admin key), so every instance with the same admin key accepts it without a store lookup; it
 * grants `read` of one world's events until it expires, and dies with the key that minted it.
 */

/** What a token carries. */
export interface EventsTokenClaims {
  /** The world whose events it reads. */
  worldId: string;
  /** The API key that minted it; null for the admin key. */
  keyId: string | null;
  /** Wall-clock ms since epoch after which it is refused. */
  expiresAt: number;
}

/** The longest a token lives: ten minutes. */
export const MAX_EVENTS_TOKEN_SECONDS = 600;

const PREFIX = "et_";
const encoder = new TextEncoder();

/** Signs and checks events tokens under one admin key. */
export class EventsTokens {
  readonly #key: Promise<CryptoKey>;

  constructor(adminKey: string) {
    this.#key = crypto.subtle.importKey(
      "raw",
      encoder.encode(`simulacra events token\n${adminKey}`),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
  }

  /** A token for the claims. */
  async mint(claims: EventsTokenClaims): Promise<string> {
    const payload = base64url(
      encoder.encode(JSON.stringify([claims.worldId, claims.keyId, claims.expiresAt])),
    );
    const signature = await crypto.subtle.sign("HMAC", await this.#key, encoder.encode(payload));
    return `${PREFIX}${payload}.${base64url(new Uint8Array(signature))}`;
  }

  /** The claims of a well-signed token that has not expired at `now`, or null. */
  async verify(token: string, now: number): Promise<EventsTokenClaims | null> {
    const match = /^et_([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{43})$/.exec(token);
    if (!match) return null;
    const ok = await crypto.subtle.verify(
      "HMAC",
      await this.#key,
      fromBase64url(match[2]),
      encoder.encode(match[1]),
    );
    if (!ok) return null;
    try {
      const [worldId, keyId, expiresAt] = JSON.parse(
        new TextDecoder().decode(fromBase64url(match[1])),
      );
      if (typeof worldId !== "string" || typeof expiresAt !== "number") return null;
      if (keyId !== null && typeof keyId !== "string") return null;
      return expiresAt > now ? { worldId, keyId, expiresAt } : null;
    } catch {
      return null;
    }
  }
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
}
