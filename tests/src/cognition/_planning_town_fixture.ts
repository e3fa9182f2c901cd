/**
 * @module The town the planning tests (core and HTTP) plan in: a cafe and a park every agent
 * knows, Isabella's apartment, and a college that is not common.
 */

/** The environment, as sent to `PUT …/environment`. */
export const PLANNING_TOWN = {
  areas: [
    {
      name: "Hobbs Cafe",
      common: true,
      subAreas: [
        { name: "cafe", objects: [{ name: "counter" }, { name: "coffee machine", state: "off" }] },
        { name: "kitchen", objects: [{ name: "stove", state: "off" }] },
      ],
    },
    {
      name: "Isabella's apartment",
      subAreas: [
        { name: "bedroom", objects: [{ name: "bed" }, { name: "desk" }] },
        { name: "kitchen", objects: [{ name: "fridge" }] },
      ],
    },
    {
      name: "Johnson Park",
      common: true,
      subAreas: [{ name: "park", objects: [{ name: "bench" }] }],
    },
    { name: "Oak Hill College", subAreas: [{ name: "library", objects: [{ name: "shelf" }] }] },
  ],
};
