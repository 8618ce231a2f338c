/** Examples of the books' retention routes in GET /openapi.json; test/openapi/examples.test.ts checks them. */
const set = { days: 400, keptFrom: 1760918400000, setAt: 1795300060000, setBy: "operator:opr_4f9c2a1b7d3e8a60" };

export const booksExamples = {
  adminGetBooksRetention: { data: set },
  adminSetBooksRetention: { request: { days: 400 }, data: set },
};
