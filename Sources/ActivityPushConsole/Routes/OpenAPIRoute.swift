extension ConsoleRoute {
    /// `GET /openapi.json`: ``OpenAPIDocument``, generated from this table.
    static let openAPI = ConsoleRoute(.get, "/openapi.json", operation: #"""
        { "summary": "This document", "operationId": "openapi",
        "responses": { "200": { "description": "OpenAPI 3.1", "content": { "application/json": { "schema": { "type": "object" } } } } } }
        """#) { _, _ in .text(200, OpenAPIDocument.text, contentType: "application/json; charset=utf-8") }
}
